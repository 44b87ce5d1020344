"""Write a tiny random Llama and a byte-level BPE tokenizer into a folder (no hub needed).

Run with an engine environment's python (it has torch, transformers and tokenizers):
    python make_tiny_model.py DIR --hidden 256 --heads 4
The tokenizer has no chat template on purpose: a base model, as most tiny test models are.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

TEXT = ("The quick brown fox jumps over the lazy dog. A transistor is a semiconductor device "
        "used to amplify or switch electrical signals and power. ") * 50


def make_tokenizer(out: Path, vocab: int) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=["<s>", "</s>", "<unk>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator([TEXT], trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>")
    fast.save_pretrained(out)


def make_model(out: Path, hidden: int, heads: int, vocab: int) -> None:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=2 * hidden,
                      num_hidden_layers=2, num_attention_heads=heads,
                      num_key_value_heads=max(1, heads // 2), max_position_embeddings=2048,
                      bos_token_id=0, eos_token_id=1)
    # several shards, so the weight loader's progress bar has steps to show
    LlamaForCausalLM(cfg).to(torch.bfloat16).save_pretrained(out, safe_serialization=True,
                                                             max_shard_size="1MB")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", type=Path)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--vocab", type=int, default=512)
    a = p.parse_args(argv)
    a.dir.mkdir(parents=True, exist_ok=True)
    make_tokenizer(a.dir, a.vocab)
    make_model(a.dir, a.hidden, a.heads, a.vocab)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
