"""The HTTP service: a FastAPI app (`app.create_app`) that Ray Serve runs as the
ingress of a deployment in front of cluster mode (`deployment`, the only module
here that imports `ray.serve`), with bearer-token identity and problem-details
errors. `vault-ray serve` starts it; docs/http.md describes it."""
