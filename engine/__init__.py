"""The arena engine: games, agents, the runner and the results store. Importable without Streamlit."""
