"""The application and its HTTP layer."""
