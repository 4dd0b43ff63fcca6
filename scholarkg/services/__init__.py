"""Services the benchmark tasks call out to: the LLM client, the local model server, prompts.

Modules here may import heavy libraries only inside functions, so that importing the
package (and ``scholarkg --help``) stays fast.
"""
