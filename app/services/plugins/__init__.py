"""Plugins: signed declarative packages that change retrieval and governance.

`packages` reads and verifies a package (pure); `administration` publishes, reviews, scores and
binds them; `effects` is what the bound plugins change for a user.
"""
