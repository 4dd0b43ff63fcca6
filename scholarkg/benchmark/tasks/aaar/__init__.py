"""AAAR-1.0 (EqInfer, ExpDesign, Weakness) and ReviewCritique on the task interface.

``eqinfer``, ``expdesign``, ``weakness`` and ``reviewcritique`` hold one task each;
``scoring`` the pure scoring (percent as published), ``predictions`` the readers of released
result folders and JSONL, ``common`` what the tasks share. Definitions: the AAAR-1.0 paper (Lou et
al., arXiv 2410.22394).
"""
