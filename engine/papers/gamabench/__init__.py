"""GAMA-Bench (Huang et al.): its suite, scores, summary, the authors' records and their importer."""
