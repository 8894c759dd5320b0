"""Tiny random vision-language models built from configs, for tests (no download, CPU).

    path = build_tiny_qwen25vl(tmp / "qwen")     # Qwen2.5-VL: native video on GPU, frames as images on CPU
    path = build_tiny_gemma3(tmp / "gemma")      # Gemma 3: frames as images (the family has no video input)
    AutoModelForImageTextToText.from_pretrained(path)   # loads offline
    AutoProcessor.from_pretrained(path)                 # Gemma 3 anywhere; Qwen2.5-VL where torchvision is
                                                        # installed (see _save_qwen_processor)

Each model has 2 small layers in its vision tower and its language model, random
weights from a fixed seed, and a real tokenizer of its family's class, trained in
memory on the project's own prompt files so prompts stay a few hundred tokens long.
The chat templates are written here in the families' layouts (role markers, one
placeholder per image or video), not copied from the released checkpoints.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Vocabulary budget of the in-memory BPE (the special and byte tokens come on top).
BPE_VOCAB = 2000


def _corpus() -> list[str]:
    """Text to train the tokenizers on: every benchmark prompt template and judge prompt."""
    files = sorted((ROOT / "evaluator" / "benchmarks").glob("*/prompts.toml"))
    files += sorted((ROOT / "evaluator" / "judges" / "prompts").glob("*.txt"))
    return [f.read_text(encoding="utf-8") for f in files]


# --- Qwen2.5-VL ------------------------------------------------------------------

QWEN_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                 "<|image_pad|>", "<|video_pad|>"]

# The Qwen layout: <|im_start|>role\n ... <|im_end|>\n, every picture between vision
# markers, the image or video pad token standing for its patches.
QWEN_TEMPLATE = (
    "{%- for m in messages -%}"
    "{{ '<|im_start|>' + m['role'] + '\\n' }}"
    "{%- if m['content'] is string -%}{{ m['content'] }}"
    "{%- else -%}{%- for c in m['content'] -%}"
    "{%- if c['type'] == 'image' -%}{{ '<|vision_start|><|image_pad|><|vision_end|>' }}"
    "{%- elif c['type'] == 'video' -%}{{ '<|vision_start|><|video_pad|><|vision_end|>' }}"
    "{%- elif c['type'] == 'text' -%}{{ c['text'] }}{%- endif -%}"
    "{%- endfor -%}{%- endif -%}"
    "{{ '<|im_end|>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}"
)

# Small pictures keep the CPU tests fast: at most 112x112 pixels per frame, i.e.
# 16 merged visual tokens (patch 14, 2x2 merge).
QWEN_PIXELS = {"shortest_edge": 28 * 28, "longest_edge": 112 * 112}


def _qwen_tokenizer():
    """A byte-level BPE (Qwen2's scheme) trained here, in the family's own tokenizer class.

    The class matters: for Qwen models transformers 5's AutoTokenizer rebuilds a
    Qwen2Tokenizer from the saved vocab and merges, so the tokenizer must be one.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers.models.qwen2.tokenization_qwen2 import Qwen2Tokenizer

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(vocab_size=BPE_VOCAB, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(_corpus(), trainer)
    model = json.loads(bpe.to_str())["model"]
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    tokenizer = Qwen2Tokenizer(vocab=model["vocab"], merges=merges, additional_special_tokens=QWEN_SPECIALS[1:])
    tokenizer.padding_side = "left"
    return tokenizer


def build_tiny_qwen25vl(path: Path) -> Path:
    """A Qwen2.5-VL (vision tower with window attention, M-RoPE language model) saved to `path`."""
    import torch
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration

    path = Path(path)
    tokenizer = _qwen_tokenizer()
    ids = dict(zip(QWEN_SPECIALS, tokenizer.convert_tokens_to_ids(QWEN_SPECIALS)))
    config = Qwen2_5_VLConfig(
        text_config=dict(
            vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=8192,
            # M-RoPE splits each head's rotary half (head_dim 8 -> 4) over time, height, width.
            rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 1, 1]},
            bos_token_id=None, eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"],
        ),
        vision_config=dict(
            depth=2, hidden_size=32, intermediate_size=64, num_heads=4, out_hidden_size=32,
            patch_size=14, spatial_merge_size=2, temporal_patch_size=2, window_size=56,
            fullatt_block_indexes=[1],
        ),
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
    )
    torch.manual_seed(0)
    model = Qwen2_5_VLForConditionalGeneration(config).eval()
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.save_pretrained(path)
    _save_qwen_processor(path, tokenizer)
    return path


def _save_qwen_processor(path: Path, tokenizer) -> None:
    """Save a Qwen2.5-VL processor: tokenizer, chat template, image AND video processor configs.

    Qwen2_5_VLProcessor cannot be built without torchvision (its video processor
    needs it), so the processor is saved without its video part here and the video
    processor's config is added to processor_config.json by hand. Where torchvision
    is installed (GPU workers) AutoProcessor then loads the full processor; without
    it, the backend loads the images-only processor (backends.load_processor).
    """
    from transformers import Qwen2_5_VLProcessor
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    class ImagesOnly(Qwen2_5_VLProcessor):
        @classmethod
        def get_attributes(cls):
            return [name for name in super().get_attributes() if name != "video_processor"]

    image_processor = Qwen2VLImageProcessorPil(size=dict(QWEN_PIXELS))
    ImagesOnly(image_processor=image_processor, tokenizer=tokenizer, chat_template=QWEN_TEMPLATE).save_pretrained(path)
    config_file = path / "processor_config.json"
    config = json.loads(config_file.read_text())
    config["processor_class"] = "Qwen2_5_VLProcessor"
    config["video_processor"] = {
        "video_processor_type": "Qwen2VLVideoProcessor",
        "size": dict(QWEN_PIXELS), "patch_size": 14, "temporal_patch_size": 2, "merge_size": 2,
        "image_mean": config["image_processor"]["image_mean"], "image_std": config["image_processor"]["image_std"],
        "do_sample_frames": False,
    }
    config_file.write_text(json.dumps(config, indent=2))


# --- Gemma 3 ---------------------------------------------------------------------

GEMMA_SPECIALS = ["<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "<start_of_turn>", "<end_of_turn>",
                  "<start_of_image>", "<end_of_image>", "<image_soft_token>"]

# The Gemma layout: BOS, <start_of_turn>user|model\n ... <end_of_turn>\n, one
# <start_of_image> per picture (the processor expands it into the image's tokens).
# A system message is folded into the first user turn, as Gemma has no system role.
GEMMA_TEMPLATE = (
    "{{ bos_token }}"
    "{%- set system = messages[0]['content'] if messages[0]['role'] == 'system' else none -%}"
    "{%- for m in messages if m['role'] != 'system' -%}"
    "{{ '<start_of_turn>' + ('model' if m['role'] == 'assistant' else m['role']) + '\\n' }}"
    "{%- if loop.first and system is not none -%}{{ system + '\\n\\n' }}{%- endif -%}"
    "{%- if m['content'] is string -%}{{ m['content'] }}"
    "{%- else -%}{%- for c in m['content'] -%}"
    "{%- if c['type'] == 'image' -%}{{ '<start_of_image>' }}"
    "{%- elif c['type'] == 'text' -%}{{ c['text'] }}{%- endif -%}"
    "{%- endfor -%}{%- endif -%}"
    "{{ '<end_of_turn>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\\n' }}{%- endif -%}"
)

GEMMA_IMAGE_SIDE = 28  # pixels; patch 7 -> 4x4 patches, pooled to 2x2 = 4 tokens per image


def _gemma_tokenizer():
    """A BPE over '▁'-joined words with byte fallback (Gemma's scheme), as a GemmaTokenizer."""
    from tokenizers import Tokenizer, models, normalizers, trainers
    from transformers import GemmaTokenizer

    bpe = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    bpe.normalizer = normalizers.Replace(" ", "\u2581")
    alphabet = [chr(c) for c in range(32, 127)] + ["\u2581", "\n"]
    trainer = trainers.BpeTrainer(vocab_size=BPE_VOCAB, special_tokens=GEMMA_SPECIALS, show_progress=False,
                                  initial_alphabet=alphabet)
    bpe.train_from_iterator(_corpus(), trainer)
    model = json.loads(bpe.to_str())["model"]
    vocab = dict(model["vocab"])
    for byte in range(256):  # byte fallback: any character the BPE does not know
        vocab.setdefault(f"<0x{byte:02X}>", len(vocab))
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    return GemmaTokenizer(vocab=vocab, merges=merges, extra_special_tokens={
        "boi_token": "<start_of_image>", "eoi_token": "<end_of_image>", "image_token": "<image_soft_token>",
    })


def build_tiny_gemma3(path: Path) -> Path:
    """A Gemma 3 (SigLIP vision tower, pooled to 4 tokens per image) saved to `path`."""
    import torch
    from transformers import Gemma3Config, Gemma3ForConditionalGeneration, Gemma3Processor
    from transformers.models.gemma3.image_processing_pil_gemma3 import Gemma3ImageProcessorPil

    path = Path(path)
    tokenizer = _gemma_tokenizer()
    ids = {s: tokenizer.convert_tokens_to_ids(s) for s in GEMMA_SPECIALS}
    config = Gemma3Config(
        text_config=dict(
            vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=8192,
            sliding_window=512, bos_token_id=ids["<bos>"], eos_token_id=[ids["<eos>"], ids["<end_of_turn>"]],
            pad_token_id=ids["<pad>"],
        ),
        vision_config=dict(
            model_type="siglip_vision_model", hidden_size=32, intermediate_size=64, num_hidden_layers=2,
            num_attention_heads=4, image_size=GEMMA_IMAGE_SIDE, patch_size=7,
        ),
        mm_tokens_per_image=4, boi_token_index=ids["<start_of_image>"], eoi_token_index=ids["<end_of_image>"],
        image_token_index=ids["<image_soft_token>"],
    )
    torch.manual_seed(0)
    model = Gemma3ForConditionalGeneration(config).eval()
    model.generation_config.eos_token_id = [ids["<eos>"], ids["<end_of_turn>"]]
    model.generation_config.pad_token_id = ids["<pad>"]
    model.save_pretrained(path)
    image_processor = Gemma3ImageProcessorPil(size={"height": GEMMA_IMAGE_SIDE, "width": GEMMA_IMAGE_SIDE})
    Gemma3Processor(image_processor=image_processor, tokenizer=tokenizer, chat_template=GEMMA_TEMPLATE,
                    image_seq_length=config.mm_tokens_per_image).save_pretrained(path)
    return path
