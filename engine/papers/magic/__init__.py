"""MAgIC (Xu et al.): its suite, abilities, social-deduction readings and published tables."""
