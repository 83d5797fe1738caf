"""The dashboard as `python -m engine serve` serves it: app.py in Streamlit's ASGI app, behind the check that a
request comes from the dashboard's own origin (engine/serve/serving.py `OwnOrigin`)."""

from starlette.middleware import Middleware
from streamlit.starlette import App

from engine.serve.serving import OwnOrigin

app = App("app.py", middleware=[Middleware(OwnOrigin)])
