"""Glossary: the definitions every caption links to (engine/present/column_help.py `GLOSSARY`, from the headline's
`DEFINITIONS` and the scorers' own words), each paper's own table as its paper defines it (`Suite.caption`), and
every column's definition (`COLUMN_HELP`, the headers' tooltips, as a table). A caption on the other pages says
only what matters for its table and links its term here."""

import pandas as pd
import streamlit as st

from engine.papers.registry import all_suites
from engine.present.column_help import COLUMN_HELP, GLOSSARY, anchor
from pages.shared.tables import fitted_columns

st.title("Glossary")
st.markdown("What the numbers of every page mean. A caption under a table says what matters for that table and "
            "links its term here.")

for term, text in GLOSSARY.items():
    st.subheader(term, anchor=anchor(term))
    st.markdown(f"{text[:1].upper()}{text[1:]}.")

st.header("The papers' own tables", anchor="papers-tables")
for suite in all_suites().values():
    if suite.caption:
        st.subheader(suite.title, anchor=anchor(suite.title))
        st.markdown(suite.caption)

st.header("Columns", anchor="columns")
columns = pd.DataFrame({"column": [name.replace(":", ": ") for name in COLUMN_HELP],  # "game: column" its own
                        "definition": list(COLUMN_HELP.values())})
shown, config = fitted_columns(columns, None, fill=("definition",))
st.dataframe(shown, hide_index=True, width="stretch", column_config=config)
