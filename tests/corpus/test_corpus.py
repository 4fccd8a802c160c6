from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from spadegym.corpus import Corpus, Document, default_corpus, load_corpus, truncate_words
from spadegym.errors import ConfigError


def test_default_corpus_is_large_varied_and_within_the_word_budget():
    corpus = default_corpus()
    assert len(corpus) >= 300
    topics = corpus.topics()
    assert set(topics) == {
        "science",
        "mathematics",
        "everyday procedures",
        "games",
        "software tools and APIs",
    }
    assert min(topics.values()) >= 50
    for doc in corpus:
        assert 80 <= doc.words <= 250, doc.id
        assert doc.title and doc.source and doc.id
    assert len({doc.id for doc in corpus}) == len(corpus)
    assert [d.id for d in load_corpus(None)] == [d.id for d in corpus]
    assert load_corpus("default").name == "default"


def test_jsonl_reads_text_or_orig_doc_and_keeps_ids(tmp_path):
    path = tmp_path / "docs.jsonl"
    lines = [
        {"text": "alpha beta gamma", "id": "a1", "title": "A"},
        {"orig_doc": "delta epsilon"},
        {"orig_doc": "delta epsilon"},  # the same text without an id: kept once
        {"text": "   "},
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n\n")
    corpus = Corpus.from_jsonl(path)
    assert [d.id for d in corpus][0] == "a1"
    assert len(corpus) == 2
    second = corpus.documents[1]
    assert second.id.startswith("doc-") and second.text == "delta epsilon"
    # Stable: the same text gets the same id in another file.
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"text": "delta epsilon"}) + "\n")
    assert Corpus.from_jsonl(other).documents[0].id == second.id


def test_jsonl_errors_name_the_line_and_the_fix(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"text": "ok"}\n{"body": "no text here"}\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl:2 has no text field \(text or orig_doc\)"):
        Corpus.from_jsonl(path)
    path.write_text("not json\n")
    with pytest.raises(ConfigError, match="bad.jsonl:1 is not JSON"):
        Corpus.from_jsonl(path)
    path.write_text(
        json.dumps({"id": "x", "text": "a"}) + "\n" + json.dumps({"id": "x", "text": "b"}) + "\n"
    )
    with pytest.raises(ConfigError, match="document id 'x' appears twice"):
        Corpus.from_jsonl(path)
    with pytest.raises(ConfigError, match="neither a file nor a folder"):
        load_corpus(tmp_path / "missing.jsonl")


def test_folder_corpus_uses_relative_paths_as_ids(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "one.txt").write_text("# First\nSome words here.")
    (tmp_path / "sub" / "two.md").write_text("Second document.\nMore.")
    (tmp_path / "skip.bin").write_bytes(b"\x00\x01")
    corpus = load_corpus(tmp_path)
    assert [d.id for d in corpus] == ["one.txt", "sub/two.md"]
    assert corpus.documents[0].title == "First"


def test_truncation_keeps_layout_and_counts_words():
    text = "one two\nthree  four\n\nfive six"
    assert truncate_words(text, 3) == "one two\nthree"
    assert truncate_words(text, 100) == text
    long = " ".join(f"w{k}" for k in range(7000))
    corpus = Corpus([Document("d", truncate_words(long))])
    assert corpus.documents[0].words == 6000
    with pytest.raises(ConfigError):
        truncate_words(text, 0)


def test_sampling_is_seeded_and_uniform():
    corpus = Corpus([Document(f"d{k}", f"text {k}") for k in range(10)])
    first = [d.id for d, _ in zip(corpus.sampler(7), range(50), strict=False)]
    again = [d.id for d, _ in zip(corpus.sampler(7), range(50), strict=False)]
    other = [d.id for d, _ in zip(corpus.sampler(8), range(50), strict=False)]
    assert first == again and first != other
    rng = random.Random(0)
    counts = Counter(corpus.sample(rng).id for _ in range(5000))
    assert len(counts) == 10 and all(400 <= c <= 600 for c in counts.values())


def test_a_list_of_texts_is_a_corpus():
    corpus = load_corpus(["first text", "second text"])
    assert len(corpus) == 2 and corpus.name == "texts"
    with pytest.raises(ConfigError, match="must hold strings"):
        load_corpus([1, 2])  # type: ignore[list-item]


def test_huggingface_dataset_from_a_local_folder(tmp_path):
    datasets = pytest.importorskip("datasets")
    data = datasets.Dataset.from_dict({"orig_doc": ["a b c", "d e f g"], "id": ["x", "y"]})
    data.save_to_disk(str(tmp_path / "ds"))
    corpus = load_corpus(f"hf:{tmp_path / 'ds'}", max_words=2)
    assert [d.id for d in corpus] == ["x", "y"]
    assert [d.text for d in corpus] == ["a b", "d e"]
    assert corpus.name.startswith("hf:")
    with pytest.raises(ConfigError, match="cannot load the dataset"):
        load_corpus(f"hf:{tmp_path / 'nothing-here'}")
