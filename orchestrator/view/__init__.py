"""dcn-view: the running testbed in a web page (docs/view.md). server.py
answers the page's JSON requests from the testbed in this process;
static/ holds the page."""
from .server import View, ViewError

__all__ = ["View", "ViewError"]
