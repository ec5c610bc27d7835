"""The HTTP edge: the Flask application (:mod:`service.web.app`), one module of thin routes per
resource over :mod:`service.web.base`, their schemas, the live routes and the viewer's files."""
