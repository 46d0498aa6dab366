"""Recipes: the options and measures of a real competition, in one word.

:data:`RECIPES` holds one :class:`Recipe` per competition: the measures and options it
sets, the shape of its files, its source (the host's evaluation page or reference code),
its quirks and a command that scores it. ``recipe="otto-2023"`` (``--recipe``) applies
one; :func:`apply_recipe` merges it with the options given explicitly, which win and
are reported. The docs' competitions table is :func:`markdown_table`.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorer.errors import HostVisibleError
from scorer.options import COMBINATIONS


@dataclass(frozen=True)
class Recipe:
    """One competition's scoring rules, declared once.

    Attributes
    ----------
    name : str
        The recipe's name, ``competition-year`` (``"otto-2023"``), or a standing
        benchmark's own name (``"mind"``).
    competition : str
        The competition's title, host and year.
    metrics : tuple of str
        The measures, the leaderboard's first (``metrics=``).
    options : mapping of str to object
        The other keywords of :func:`scorer.evaluate` it sets.
    shape : str
        The files' shape, with the host's column names.
    source : str
        The URL of the host's evaluation page or reference code.
    quirks : str
        What the recipe follows where sources disagree, and what the host provides.
    command : str
        One command line that scores it.
    """

    name: str
    competition: str
    metrics: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    shape: str = ""
    source: str = ""
    quirks: str = ""
    command: str = ""

    def settings(self) -> dict[str, Any]:
        """The keywords of :func:`scorer.evaluate` the recipe sets, ``metrics`` first.

        Examples
        --------
        >>> RECIPE["santander-2016"].settings()
        {'metrics': ['MAP@7'], 'k': 7, 'empty_ground_truth': 'zero'}
        """
        return {"metrics": list(self.metrics), **copy.deepcopy(dict(self.options))}

    @property
    def metric(self) -> str:
        """The measures as the tables show them (``"MAP@12"``)."""
        return ", ".join(self.metrics)


def _command(name: str, *extra: str, files: tuple[str, str] = ("solution", "submission")) -> str:
    """``scorer SOLUTION.csv SUBMISSION.csv --recipe NAME [extra]``."""
    ends = [file if "." in file else f"{file}.csv" for file in files]
    return " ".join(["scorer", *ends, "--recipe", name, *extra])


def _kaggle(slug: str) -> str:
    return f"https://www.kaggle.com/competitions/{slug}/overview/evaluation"


#: ``k`` of MIND, whose host reads whole impressions but whose nDCG@10 has a cut-off
#: (so ``k`` would otherwise be 10): the most candidates an impression may rank.
_WHOLE_ROWS = 1000
_WHOLE_ROWS_NOTE = (
    f"The host reads whole rows; here a row may hold up to k = {_WHOLE_ROWS:,} ids (raise "
    "--k for longer rows)."
)
#: The set recipes set no ``k``: with no cut-off among their measures, rows are read whole.
_READ_WHOLE = (
    "The recipe sets no k: rows are read whole, bounded only by the file limits (a --k "
    "given bounds every row)."
)
_REPEATS = "A repeated id keeps its rank and earns nothing (the Kaggle rule)."
_ONE_LABEL = "One true label per row, so MAP@K equals MRR@K."
_TRUNCATE_HINT = (
    "A row with more than K ids is an error (the page asks for at most K); Kaggle-lineage "
    "graders score the first K: add --extra-predictions truncate for that."
)

RECIPES: tuple[Recipe, ...] = (
    Recipe(
        "h-and-m-2022",
        "H&M Personalized Fashion Recommendations (Kaggle, 2022)",
        ("MAP@12",),
        {"k": 12},
        "customer_id,prediction: one row per customer, up to 12 space-separated article_ids",
        _kaggle("h-and-m-personalized-fashion-recommendations"),
        "Follows Kaggle's page: the solution lists every customer, and customers with no "
        "purchase in the test week are left out of the mean but need their row. OpenAI's "
        "mle-bench grader keeps only customers with a purchase in its answers and asks for "
        "a superset of their ids, dropping the others: with such a solution add "
        "--unknown-row-ids ignore (same value). " + _TRUNCATE_HINT,
        _command("h-and-m-2022"),
    ),
    Recipe(
        "otto-2023",
        "OTTO - Multi-Objective Recommender System (Kaggle, 2022-23)",
        ("R(norm=min_k,avg=micro)@20",),
        {
            "k": 20,
            "row_id_type_separator": "_",
            "type_weights": {"clicks": 0.1, "carts": 0.3, "orders": 0.6},
            "missing_rows": "empty",
            "extra_predictions": "truncate",
        },
        "session_type,labels: three rows per session (42_clicks, 42_carts, 42_orders), up to "
        "20 space-separated aids; the solution likewise, from test_labels.jsonl",
        "https://github.com/otto-de/recsys-dataset/blob/main/src/evaluate.py",
        "Per type the micro recall Σ |set(first 20) ∩ truth| / Σ min(20, |truth|), weighted "
        "0.1 / 0.3 / 0.6, as KAGGLE.md and the reference code say: a repeat takes a slot and "
        "counts once, lists are truncated after 20, a session or type with no label adds "
        "nothing, and a session missing from the submission scores 0 (a warning). The "
        "reference code's clicks truth is one aid (the next click) and it tests "
        "`aid in prediction[:20]`; with one aid that is the formula's value, which the "
        "recipe follows for a solution listing several clicked aids too.",
        _command("otto-2023"),
    ),
    Recipe(
        "santander-2016",
        "Santander Product Recommendation (Kaggle, 2016)",
        ("MAP@7",),
        {"k": 7, "empty_ground_truth": "zero"},
        "ncodpers,added_products: one row per customer, up to 7 space-separated products",
        _kaggle("santander-product-recommendation"),
        "A customer with no new product scores 0 (the page: 'If m = 0, the precision is "
        "defined to be 0') and stays in the mean. " + _TRUNCATE_HINT,
        _command("santander-2016"),
    ),
    Recipe(
        "coupon-2015",
        "Coupon Purchase Prediction (Recruit Ponpare, Kaggle, 2015)",
        ("MAP@10",),
        {"k": 10, "empty_ground_truth": "zero"},
        "USER_ID_hash,PURCHASED_COUPONS: one row per user, up to 10 space-separated coupon hashes",
        _kaggle("coupon-purchase-prediction"),
        "Every user is listed and most buy nothing: a user with no purchase scores 0 and "
        "stays in the mean (the page's sum runs over every user, as Santander's does); "
        "--empty-ground-truth skip leaves them out. " + _TRUNCATE_HINT,
        _command("coupon-2015"),
    ),
    Recipe(
        "expedia-2016",
        "Expedia Hotel Recommendations (Kaggle, 2016)",
        ("MAP@5",),
        {"k": 5},
        "id,hotel_cluster: one row per event, up to 5 space-separated hotel clusters",
        _kaggle("expedia-hotel-recommendations"),
        "One booked cluster per event, so MAP@5 equals MRR@5. " + _REPEATS,
        _command("expedia-2016"),
    ),
    Recipe(
        "outbrain-2017",
        "Outbrain Click Prediction (Kaggle, 2016-17)",
        ("MAP@12",),
        {"k": 12, "candidate_rule": "permutation"},
        "display_id,ad_id: one row per display, its candidate ads space-separated, most "
        "likely first; the candidates as a table of their own (clicks_test.csv: "
        "display_id,ad_id, one ad per row)",
        _kaggle("outbrain-click-prediction"),
        "Each display has one clicked ad, so MAP@12 equals MRR@12. The submission ranks "
        "every ad of its display once and nothing else (a permutation of the candidates): "
        "give them with --candidates.",
        _command("outbrain-2017", "--candidates clicks_test.csv"),
    ),
    Recipe(
        "kdd-cup-2023",
        "Amazon KDD Cup 2023, Multilingual Shopping Session, tasks 1 and 2 (AIcrowd)",
        ("MRR@100",),
        {"k": 100},
        "Parquet: one row per session, a session id and a list column "
        "next_item_prediction of up to 100 ASINs",
        "https://www.aicrowd.com/challenges/amazon-kdd-cup-23-multilingual-recommendation-challenge",
        "One next item per session; 'if there is no ground truth on the top K ranking "
        "list, then we would set 1/Rank(t) = 0'. The locale can be reported with "
        "--segment-column-name locale.",
        _command("kdd-cup-2023", files=("solution.parquet", "submission.parquet")),
    ),
    Recipe(
        "esci-2022",
        "Amazon KDD Cup 2022, ESCI task 1: query-product ranking (AIcrowd)",
        ("nDCG(gain=linear)@500",),
        {
            "k": 500,
            "layout": "long",
            "solution_layout": "long",
            "grade_column_name": "grade",
            "unjudged": "drop",
            "missing_rows": "empty",
            "empty_ground_truth": "zero",
        },
        "query_id,product_id: one row per ranked product, in rank order; the solution "
        "query_id,product_id,grade, one row per judged pair, the grade Exact 100, "
        "Substitute 10, Complement 1, Irrelevant 0",
        "https://github.com/amazon-science/esci-data/blob/main/ranking/prepare_trec_eval_files.py",
        "trec_eval's ndcg with -J -c, as the host's baseline: products the solution does not "
        "judge are dropped and the ranks closed up, a missing query scores 0, and so does a "
        "query with only irrelevant products. Gains 1, 0.1, 0.01, 0 become grades 100, 10, "
        "1, 0 with linear gain (nDCG is unchanged by scaling every gain). The whole ranking "
        "counts: the cut-off 500 is above any query's products. The host's trec_eval "
        "command (labels E 4, S 2, C 3, I 1 with -m 'ndcg.1=0,2=0.01,3=0.1,4=1') swaps the "
        "Substitute and Complement gains (Substitute 0.01, Complement 0.1); this recipe keeps "
        "the documented ones: to reproduce that script, grade Substitute 1 and Complement 10.",
        _command("esci-2022"),
    ),
    Recipe(
        "dressipi-2022",
        "RecSys Challenge 2022 (Dressipi)",
        ("MRR@100",),
        {"k": 100, "layout": "long", "rank_column_name": "rank"},
        "session_id,item_id,rank: one row per ranked item, ranks 1 to 100; the solution "
        "session_id,item_id, the purchased item",
        "https://www.recsyschallenge.com/2022/dataset.html",
        "One purchased item per session. The candidate items (one set for every session) "
        "are not checked; to check them, give them per session with --candidates and "
        "--candidate-rule subset.",
        _command("dressipi-2022"),
    ),
    Recipe(
        "trivago-2019",
        "RecSys Challenge 2019 (trivago)",
        ("MRR@25",),
        {"k": 25},
        "one row per click-out: a key the host builds from user_id, session_id, timestamp "
        "and step, and item_recommendations, up to 25 space-separated items; the solution "
        "the key and the clicked-out item (reference) under the name item_recommendations",
        "https://github.com/recsyschallenge/2019/blob/master/src/score_submission/functions.py",
        "The row key is composite (user_id, session_id, timestamp, step): join it into one "
        "column in both files. The validation and confirmation users are the Public and "
        "Private splits (Usage per row). Where the reference script differs, the recipe "
        "follows the published definition (the mean reciprocal rank of the clicked item): "
        "the script's inner join leaves a click-out missing from the submission out of the "
        "mean, where the recipe refuses the submission; and the script scores 0 when the "
        "clicked item is listed twice, where a repeat here keeps its rank and earns nothing "
        "(the first occurrence counts). The impressions are not checked; to check them, give "
        "them with --candidates and --candidate-rule subset.",
        _command("trivago-2019"),
    ),
    Recipe(
        "airbnb-2016",
        "Airbnb New User Bookings (Kaggle, 2015-16)",
        ("nDCG@5",),
        {"k": 5, "layout": "long"},
        "id,country: one row per (user, country), at most 5 per user, best first; the "
        "solution id,country, the booked destination",
        _kaggle("airbnb-recruiting-new-user-bookings"),
        "One relevant country per user, so nDCG@5 = 1 / log2(rank + 1) of the booked "
        "country, 0 when it is not among the 5.",
        _command("airbnb-2016"),
    ),
    Recipe(
        "expedia-2013",
        "Personalize Expedia Hotel Searches, ICDM 2013 (Kaggle)",
        ("nDCG@38",),
        {"k": 38, "layout": "long", "solution_layout": "long", "grade_column_name": "grade"},
        "SearchId,PropertyId: one row per (search, hotel), best first; the solution "
        "SearchId,PropertyId,grade, one row per hotel shown: 5 booked, 1 clicked, 0 neither",
        _kaggle("expedia-personalized-sort"),
        "Gain 2^grade - 1, the ideal from the search's own grades; 38 is the most hotels a "
        "search shows. A search with no click or booking is left out.",
        _command("expedia-2013"),
    ),
    Recipe(
        "spotify-2018",
        "Spotify Million Playlist Dataset Challenge (ACM RecSys Challenge 2018, AIcrowd)",
        ("RPrec", "nDCG(discount=log2_i,ideal=hits)@500"),
        {"k": 500},
        "pid,tracks: one row per challenge playlist, its 500 recommended track URIs "
        "space-separated, best first (the host's file is `pid, trackuri_1, ..., trackuri_500` "
        "after a team_info line: join the URIs into one cell); the solution pid,tracks, the "
        "withheld tracks",
        "https://recsys-challenge.spotify.com/rules",
        "The track level of the rules: R-precision |G ∩ R_{1:|G|}| / |G|, and NDCG = DCG / "
        "IDCG with DCG = rel_1 + Σ_{i≥2} rel_i / log2(i) over the 500 tracks and IDCG = 1 + "
        "Σ_{i=2}^{|G∩R|} 1 / log2(i), the ideal of the retrieved relevant tracks only; a "
        "playlist with none retrieved has IDCG 0 and scores NDCG 0. The organisers' "
        "metrics.py (github.com/plamere/RecsysChallengeTools) divides rank i by log2(i + 1) "
        "and takes the IDCG over min(|G|, 500) tracks: that is plain nDCG@500 "
        "(-m RPrec -m nDCG@500); the recipe follows the rules, the definition the "
        "participants were given. Not computed: the artist-level match, the Recommended "
        "Songs clicks and the Borda count that ranked the teams over the three measures. "
        "The host rejected a row without exactly 500 distinct tracks: here more than 500 is "
        "an error, fewer a warning, and a repeated track keeps its rank and earns nothing. "
        "Every challenge playlist has withheld tracks (a row with none would be left out). "
        "Seed tracks in a submission, which the host refused, are not checked.",
        _command("spotify-2018"),
    ),
    Recipe(
        "humpback-whale-2019",
        "Humpback Whale Identification (Kaggle, 2019)",
        ("MAP@5",),
        {"k": 5},
        "Image,Id: one row per image, up to 5 space-separated whale ids; new_whale is an "
        "ordinary label",
        _kaggle("humpback-whale-identification"),
        _ONE_LABEL + " " + _REPEATS,
        _command("humpback-whale-2019"),
    ),
    Recipe(
        "happywhale-2022",
        "Happywhale - Whale and Dolphin Identification (Kaggle, 2022)",
        ("MAP@5",),
        {"k": 5},
        "image,predictions: one row per image, up to 5 space-separated individual_ids; "
        "new_individual is an ordinary label",
        _kaggle("happy-whale-and-dolphin"),
        _ONE_LABEL + " " + _REPEATS,
        _command("happywhale-2022"),
    ),
    Recipe(
        "landmark-retrieval-2021",
        "Google Landmark Retrieval 2021 (Kaggle)",
        ("MAP@100",),
        {"k": 100, "extra_predictions": "truncate"},
        "id,images: one row per query image, up to 100 space-separated index image ids",
        "https://github.com/tensorflow/models/blob/master/research/delf/delf/python/"
        "datasets/google_landmarks_dataset/metrics.py",
        "The host's MeanAveragePrecision: AP over the first 100 ids (more are not an error), "
        "a repeated id skipped, divided by min(m_q, 100); queries with no relevant index "
        "image are not scored but need their row (the 2019 and 2020 editions are scored "
        "alike). That code scores a query missing from the predictions 0, where Kaggle's "
        "submission check asks for every row: add --missing-rows empty to follow the code.",
        _command("landmark-retrieval-2021"),
    ),
    *(
        Recipe(
            f"landmark-recognition-{year}",
            f"Google Landmark Recognition {year} (Kaggle)",
            ("GAP",),
            {"k": 1, "empty_ground_truth": "zero"},
            "id,landmarks: one row per test image, one landmark id and its confidence "
            "('123 0.87') or an empty cell; the solution's landmarks cell empty for an image "
            "with no landmark",
            "https://github.com/tensorflow/models/blob/master/research/delf/delf/python/"
            "datasets/google_landmarks_dataset/metrics.py",
            "The host's GlobalAveragePrecision: every prediction sorted by confidence "
            "descending, ties by image id ascending; a right label is one among the image's "
            "landmarks; predictions on images with no landmark are false positives "
            "(empty_ground_truth='zero' keeps those rows); M counts the images with a "
            "landmark, predicted or not. The code reads confidences with float(), so it "
            "would sort 'nan' and 'inf' anyhow: here a confidence must be a finite number. It "
            "skips an image missing from the predictions, where Kaggle's check asks for every "
            "row: add --missing-rows empty to follow the code. The value is exact, where the "
            "code sums floats. The 2019, 2020 and 2021 editions are scored alike.",
            _command(f"landmark-recognition-{year}"),
        )
        for year in (2019, 2020, 2021)
    ),
    Recipe(
        "llm-science-exam-2023",
        "Kaggle - LLM Science Exam (2023)",
        ("MAP@3",),
        {"k": 3},
        "id,prediction: one row per question, up to 3 space-separated letters (A to E)",
        _kaggle("kaggle-llm-science-exam"),
        "One correct letter per question, so MAP@3 equals MRR@3; a repeated letter earns "
        "nothing once the correct one is scored.",
        _command("llm-science-exam-2023"),
    ),
    Recipe(
        "eedi-2024",
        "Eedi - Mining Misconceptions in Mathematics (Kaggle, 2024)",
        ("MAP@25",),
        {"k": 25},
        "QuestionId_Answer,MisconceptionId: one row per (question, wrong answer), the key "
        "joined by the host (1869_A), up to 25 space-separated misconception ids",
        _kaggle("eedi-mining-misconceptions-in-mathematics"),
        "One correct misconception per row ('hence no divisor term'); once scored, a label "
        "is no longer relevant: [A, A, A, A, A] scores 1.",
        _command("eedi-2024"),
    ),
    Recipe(
        "eedi-2025",
        "MAP - Charting Student Math Misunderstandings (Eedi, Kaggle, 2025)",
        ("MAP@3",),
        {"k": 3},
        "row_id,Category:Misconception: one row per student explanation, up to 3 "
        "space-separated Category:Misconception tokens (True_Correct:NA)",
        _kaggle("map-charting-student-math-misunderstandings"),
        "One correct token per row, so MAP@3 equals MRR@3; a token is any string without "
        "whitespace (':' and '_' included). " + _REPEATS,
        _command("eedi-2025"),
    ),
    Recipe(
        "hotel-id-2021",
        "Hotel-ID to Combat Human Trafficking 2021 (FGVC8, Kaggle)",
        ("MAP@5",),
        {"k": 5},
        "image,hotel_id: one row per image, up to 5 space-separated hotel ids",
        _kaggle("hotel-id-2021-fgvc8"),
        "The page's rule for repeats: once a correct label is scored it is no longer "
        "relevant, so A A A A A scores 1 when A is right. " + _ONE_LABEL,
        _command("hotel-id-2021"),
    ),
    Recipe(
        "learning-equality-2023",
        "Learning Equality - Curriculum Recommendations (Kaggle, 2023)",
        ("SetF(beta=2)",),
        {},
        "topic_id,content_ids: one row per topic, its content ids space-separated, no limit",
        _kaggle("learning-equality-curriculum-recommendations"),
        "The mean over topics of F2 = 5·|S∩R| / (4|R| + |S|), the submitted ids as a set "
        "(a repeat counts once), no cut-off. " + _READ_WHOLE,
        _command("learning-equality-2023"),
    ),
    Recipe(
        "shopee-2021",
        "Shopee - Price Match Guarantee (Kaggle, 2021)",
        ("SetF",),
        {},
        "posting_id,matches: one row per posting, its matching posting ids space-separated "
        "(the posting itself included: posts always self-match)",
        _kaggle("shopee-product-matching"),
        "The mean over postings of F1 = 2·|S∩R| / (|S| + |R|), the submitted ids as a set, "
        "no cut-off (groups are capped at 50, so more than 50 matches cannot help). " + _READ_WHOLE,
        _command("shopee-2021"),
    ),
    Recipe(
        "instacart-2017",
        "Instacart Market Basket Analysis (Kaggle, 2017)",
        ("SetF",),
        {"empty_token": "None"},
        "order_id,products: one row per order, its reordered product ids space-separated, or None",
        _kaggle("instacart-market-basket-analysis"),
        "The mean over orders of F1 = 2·|S∩R| / (|S| + |R|), the submitted ids as a set, "
        "no cut-off. None is an item like the others (predicting None for an order with no "
        "reorder is a hit, None beside products is allowed), and an empty cell in either "
        "file stands for None (empty_token='None'). " + _READ_WHOLE,
        _command("instacart-2017"),
    ),
    Recipe(
        "mind",
        "MIND: Microsoft News Recommendation (MIND news recommendation competition, 2020)",
        ("AUC", "MRR(ranks=all)@all", "nDCG@5", "nDCG@10"),
        {
            "k": _WHOLE_ROWS,
            "layout": "long",
            "rank_column_name": "rank",
            "solution_layout": "long",
            "grade_column_name": "label",
        },
        "ImpressionID,NewsID,label (solution: every candidate of an impression, 1 if "
        "clicked, 0 if not) and ImpressionID,NewsID,rank (submission: every candidate's "
        "rank, 1 best), the long form of MIND's impression lines",
        "https://github.com/msnews/MIND/blob/master/evaluate.py",
        "The host's evaluate.py averages, over impressions, scikit-learn's AUC of the "
        "clicks against the ranking, its 'MRR' (the mean over the clicked items of 1/rank, "
        "not the reciprocal rank of the first click: MRR(ranks=all), as EB-NeRD's mrr_score), "
        "and nDCG@5 and nDCG@10 with gains 2^label - 1; the recipe gives these four, in its "
        "order. MIND's file holds, per impression, the ranks of its candidates in their "
        "order ([2,1,3]): write one row per candidate with its rank. An impression with no "
        "click is left out (MIND's AUC is undefined there); one whose every candidate was "
        "clicked scores AUC 1. " + _WHOLE_ROWS_NOTE,
        _command("mind", files=("truth.csv", "prediction.csv")),
    ),
    Recipe(
        "foursquare-2022",
        "Foursquare - Location Matching (Kaggle, 2022)",
        ("Jaccard",),
        {},
        "id,matches: one row per place, its matching place ids space-separated (the place "
        "itself included: places always self-match)",
        _kaggle("foursquare-location-matching"),
        "The mean over places of IoU = |S∩R| / (|S| + |R| - |S∩R|), the submitted ids as a "
        "set, no cut-off. " + _READ_WHOLE,
        _command("foursquare-2022"),
    ),
)

#: Each recipe by name.
RECIPE: dict[str, Recipe] = {recipe.name: recipe for recipe in RECIPES}


def list_recipes() -> list[Recipe]:
    """Every recipe, in the order of the docs' competitions table.

    Examples
    --------
    >>> [recipe.name for recipe in list_recipes()][:3]
    ['h-and-m-2022', 'otto-2023', 'santander-2016']
    >>> RECIPE["otto-2023"].metric
    'R(norm=min_k,avg=micro)@20'
    """
    return list(RECIPES)


def find_recipe(name: object) -> Recipe:
    """The recipe called ``name`` (in any case), or a :class:`HostVisibleError` naming
    the closest.

    Examples
    --------
    >>> find_recipe("OTTO-2023").name
    'otto-2023'
    >>> find_recipe("otto")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: Unknown recipe 'otto'. The closest: 'otto-2023'. ...
    """
    if not isinstance(name, str):
        raise HostVisibleError(
            f"The 'recipe' parameter must be a str, a recipe's name. Got {name!r} instead."
        )
    found = RECIPE.get(name.strip().lower())
    if found is not None:
        return found
    close = _closest(name.strip().lower())
    shown = f" The closest: {', '.join(repr(found) for found in close)}." if close else ""
    raise HostVisibleError(
        f"Unknown recipe {name!r}.{shown} Every recipe: `scorer recipes` (scorer.list_recipes())."
    )


def _closest(name: str) -> list[str]:
    """Up to three recipe names like ``name``: by spelling, else sharing its first word
    (with the competition's first word, letters and digits only: ``hm`` for H&M's).

    Examples
    --------
    >>> _closest("hm"), _closest("santa")
    (['h-and-m-2022'], ['santander-2016'])
    """
    names = list(RECIPE)
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    if not close:
        word = name.split("-")[0]
        close = [
            found
            for found, recipe in RECIPE.items()
            if word and (found.startswith(word) or _first_word(recipe.competition) == word)
        ][:3]
    return close


def _first_word(title: str) -> str:
    return "".join(c for c in title.split()[0].lower() if c.isalnum())


@dataclass(frozen=True)
class Override:
    """An option given with a recipe that replaces the recipe's own value."""

    option: str
    recipe_value: Any
    given_value: Any

    def __str__(self) -> str:
        return f"{self.option}={self.given_value!r} (the recipe's: {self.recipe_value!r})"


#: Options of which at most one may be given: one given with a recipe replaces the other.
EXCLUSIVE = tuple(rule.names for rule in COMBINATIONS if rule.exclusive)


def apply_recipe(name: object, given: Mapping[str, Any]) -> tuple[dict[str, Any], list[Override]]:
    """The keywords of :func:`scorer.evaluate`: the recipe's, then those ``given``
    explicitly, which win; and each option given that replaced a recipe's value.

    Of two options that exclude each other (:data:`EXCLUSIVE`), one given replaces the
    recipe's other.

    Examples
    --------
    >>> settings, overrides = apply_recipe("santander-2016", {"k": 7, "empty_ground_truth": "skip"})
    >>> settings
    {'metrics': ['MAP@7'], 'k': 7, 'empty_ground_truth': 'skip'}
    >>> [str(found) for found in overrides]
    ["empty_ground_truth='skip' (the recipe's: 'zero')"]
    """
    recipe = find_recipe(name)
    settings = recipe.settings()
    overrides = [
        Override(option, settings[option], value)
        for option, value in given.items()
        if option in settings and _differs(settings[option], value)
    ]
    for pair in EXCLUSIVE:
        for option, other in (pair, pair[::-1]):
            if given.get(option) is not None and other in settings and other not in given:
                overrides.append(Override(other, settings.pop(other), None))
    return {**settings, **given}, overrides


def _differs(recipe_value: Any, given_value: Any) -> bool:
    """Whether a given value replaces the recipe's: any value that is not plainly equal,
    such as an array, whose comparison has no one truth value (the options' checks then
    say what is wrong with it).

    Examples
    --------
    >>> _differs(7, 7), _differs(["MAP@7"], ["MRR"])
    (False, True)
    >>> import numpy as np
    >>> _differs(7, np.array([3, 4]))
    True
    """
    try:
        return bool(recipe_value != given_value)
    except (TypeError, ValueError):
        return True


def override_message(name: str, overrides: list[Override]) -> str:
    """The host's note of the options that replaced a recipe's.

    Examples
    --------
    >>> override_message("h-and-m-2022", [Override("k", 12, 20)])
    "Options given with the recipe 'h-and-m-2022' replace its own: k=20 (the recipe's: 12)."
    """
    shown = "; ".join(str(found) for found in overrides)
    return f"Options given with the recipe {name!r} replace its own: {shown}."


def markdown_table() -> str:
    """The docs' table of competitions and their quirks, from :data:`RECIPES`
    (``python tools/tables.py``).

    Examples
    --------
    >>> markdown_table().splitlines()[2].split(" | ")[:3]
    ['| `h-and-m-2022`', 'H&M Personalized Fashion Recommendations (Kaggle, 2022)', '`MAP@12`']
    """
    bar = "\\|"
    lines = [
        "| recipe | competition | metric | shape | source | command |",
        "|---|---|---|---|---|---|",
    ]
    for recipe in RECIPES:
        cells = (
            f"`{recipe.name}`",
            recipe.competition,
            f"`{recipe.metric}`",
            recipe.shape,
            f"[{_site(recipe.source)}]({recipe.source})",
            f"`{recipe.command}`",
        )
        lines.append("| " + " | ".join(cell.replace("|", bar) for cell in cells) + " |")
    lines += ["", "Each recipe's quirks (also `scorer recipes NAME`):", ""]
    lines += [f"- `{recipe.name}`: {recipe.quirks}" for recipe in RECIPES]
    return "\n".join(lines)


def _site(url: str) -> str:
    """A short label for a source URL: its host, and the file for code.

    Examples
    --------
    >>> _site("https://github.com/otto-de/recsys-dataset/blob/main/src/evaluate.py")
    'github.com/otto-de/recsys-dataset: evaluate.py'
    >>> _site("https://www.kaggle.com/competitions/x/overview/evaluation")
    'kaggle.com: evaluation page'
    """
    rest = url.split("://", 1)[-1].removeprefix("www.")
    host, _, path = rest.partition("/")
    if host == "github.com":
        parts = path.split("/")
        return f"github.com/{parts[0]}/{parts[1]}: {parts[-1]}"
    if host == "kaggle.com":
        return "kaggle.com: evaluation page"
    return host
