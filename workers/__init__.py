"""RQ jobs: turn deadlines and tournament progress, over the service's application code."""
