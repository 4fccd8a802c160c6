"""The lowest floor: small helpers every stage may use, which import no other spadegym package.

- ``compat``: workarounds for the Pythons spadegym runs on (one lock for ``ast``, Gymnasium's
  checker quieted thread-safely) and ``renamed``, which keeps a renamed public name importable
  for one release with a warning.
- ``jsonl``: JSON-lines files whose every line must be an object (corpora, recorded replies).
- ``leftovers``: temporary names that carry their writer's pid and host, and removing those of
  dead writers only.
- ``quiet``: loading models without the libraries' console noise.

Nothing here imports from another spadegym package (``jsonl`` raises ``spadegym.errors``'
``ConfigError``, the one exception), so any module may import these without a cycle. The
package imports none of its modules: ``from spadegym.util import compat`` loads ``compat`` only.
"""
