"""Loaders turn files in their real formats into schema records; they never write Cypher.

One module per source format. Each exposes generator functions that yield records (and
raise ``InputError`` naming file, line/record and field); ``writer.write_records`` stores
them through the ``GraphStore`` interface.
"""
