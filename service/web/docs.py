"""The contract rendered for people: GET /docs draws /openapi.json with Swagger UI.

Swagger UI's files come from the ``swagger-ui-bundle`` package and are served from here (no CDN,
nothing fetched at run time); the page's Content-Security-Policy keeps every request it makes on
this server. Like /openapi.json, the page is about the contract and is not an operation of it.
"""

from __future__ import annotations

from pathlib import Path

import swagger_ui_bundle
from flask import Blueprint, Flask, Response, abort, send_from_directory

ASSETS = Path(swagger_ui_bundle.swagger_ui_path)
SERVED = ("swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png", "favicon-16x16.png")

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>naipes API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/naipes-docs.js"></script>
</body>
</html>
"""

# validatorUrl null: Swagger UI would otherwise ask validator.swagger.io for a badge.  The server that serves
# the page comes first among the contract's servers: "Try it out" asks this server, wherever it listens (the
# contract's own, the start command's default address, is another origin, which the page's policy refuses).
SCRIPT = """function ThisServer() {
  return { statePlugins: { spec: { wrapActions: {
    updateJsonSpec: function (original) {
      return function (spec) {
        var here = { url: window.location.origin, description: "this server (the one serving this page)" };
        var others = (spec.servers || []).filter(function (s) { return s.url !== here.url; });
        return original(Object.assign({}, spec, { servers: [here].concat(others) }));
      };
    }
  } } } };
}
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [ThisServer],
    layout: "BaseLayout"
  });
});
"""

docs = Blueprint("docs", __name__)


def _headers(resp: Response) -> Response:
    resp.headers["Content-Security-Policy"] = CSP
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp


@docs.get("/docs")
def page():
    resp = Response(PAGE, mimetype="text/html")
    resp.headers["Cache-Control"] = "no-cache"
    return _headers(resp)


@docs.get("/docs/naipes-docs.js")
def script():
    resp = Response(SCRIPT, mimetype="text/javascript")
    resp.headers["Cache-Control"] = "no-cache"
    return _headers(resp)


@docs.get("/docs/<name>")
def asset(name: str):
    if name not in SERVED:
        abort(404)
    return _headers(send_from_directory(ASSETS, name, max_age=86400))


def install(app: Flask) -> None:
    """Serve /docs on an application (no credential: the contract is public)."""
    app.register_blueprint(docs)
