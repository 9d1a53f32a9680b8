"""One router per resource; each route calls a `core` service and shapes its answer."""
