"""Transfer: one user's state exported and imported as JSON Lines.

`export_import` runs both directions; `file` is the file's format; `plan` is what an import
writes.
"""
