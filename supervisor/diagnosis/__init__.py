"""Diagnosis: failure causes and their signatures, the classifier, and the checklist."""

from __future__ import annotations

from .classifier import (
    Verdict,
    classify_file,
    classify_lines,
    classify_text,
    detect_engine,
    diagnose_dict,
)

__all__ = [
    "Verdict",
    "classify_file",
    "classify_lines",
    "classify_text",
    "detect_engine",
    "diagnose_dict",
]
