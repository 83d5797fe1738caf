"""Streamlit entry point: `streamlit run app.py`. Navigation over the pages in pages/."""

import streamlit as st

st.set_page_config(page_title="Game Arena for LLMs", layout="wide")

PAGES = [
    st.Page("pages/overview.py", title="Overview", icon=":material/home:", default=True),
]

st.navigation(PAGES).run()
