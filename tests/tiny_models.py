"""Tiny language models built from a config, for tests (no download, CPU)."""

from __future__ import annotations

from pathlib import Path

from evaluator.judges import load_prompt


def build_tiny_judge(path: Path, silent: bool) -> Path:
    """A 2-layer Llama with a word-level tokenizer over the prompt words.

    Llama, not Qwen2: for model type qwen2, transformers 5's AutoTokenizer swaps in
    its own byte-level Qwen2Tokenizer instead of the saved word-level one.

    silent=True zeroes the final norm, so every logit is 0 and greedy decoding
    always picks token id 0, which is "B": a model whose answer we know.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    words = sorted(set(" ".join([load_prompt("blank"), load_prompt("simpleqa"),
                                 "yes no A C the answer is Paris Lyon"]).split()))
    specials = ["[UNK]", "[PAD]", "<|user|>", "<|assistant|>", "<|end|>"]
    vocab = {"B": 0}
    for token in specials + words:
        vocab.setdefault(token, len(vocab))
    backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    backend.decoder = decoders.WordPiece(cleanup=False)  # joins words with spaces
    backend.add_special_tokens(specials)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend, unk_token="[UNK]", pad_token="[PAD]", eos_token="<|end|>",
    )
    tokenizer.chat_template = (
        "{% for m in messages %}<|user|> {{ m['content'] }} <|end|> {% endfor %}"
        "{% if add_generation_prompt %}<|assistant|> {% endif %}"
    )
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
        pad_token_id=vocab["[PAD]"], eos_token_id=vocab["<|end|>"], bos_token_id=None,
    )
    model = LlamaForCausalLM(config)
    if silent:
        with torch.no_grad():
            model.model.norm.weight.zero_()
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path
