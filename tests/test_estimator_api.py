"""GCUL and simulations.models.LogisticRegression as scikit-learn estimators (issue 17).

scikit-learn's own estimator checks run on both (``parametrize_with_checks``); the checks that
cannot apply to a classifier that rejects are declared with the reason each fails
(``expected_failed_checks``), and ``xfail_strict`` makes each of them fail exactly as declared.
Then the ecosystem's entry points: Pipeline, cross_val_score, GridSearchCV, clone, pickle.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from _blob_data import confusion_blobs
from sklearn.base import clone, is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator, parametrize_with_checks

import gcul_theory
from simulations.certification import certify, certify_cross_fit, random_folds
from simulations.gcul import GCUL
from simulations.models import LogisticRegression

# ----------------------------------------------------------------------------------------------
# scikit-learn's estimator checks
# ----------------------------------------------------------------------------------------------

REJECTS_ON_BLOBS = (
    "GCUL rejects: on the check's make_blobs data phase 1 errs on some training points, so "
    "phase 3 learns an uncertain class and predict returns uncertain_label_ for part of the "
    "data (GCUL(): 6 errors and 36 rejections of 200 points with 2 classes, 22 and 67 of 300 "
    "with 3). The check counts rejections as errors (accuracy 0.82 and 0.75 < 0.83) and "
    "requires argmax(predict_proba) and argmax(decision_function), which range over the K "
    "classes only, to equal predict on every row, which fails exactly on the rejected rows. "
    "GCUL.score, the default score, is 0.97 and 0.94 there."
)


def expected_failed_checks(estimator) -> dict[str, str]:
    """The checks that cannot pass, with the reason each fails (none for LogisticRegression)."""
    if not isinstance(estimator, GCUL):
        return {}
    return {"check_classifiers_train": REJECTS_ON_BLOBS}


_CHECKS = parametrize_with_checks(
    [
        LogisticRegression(),
        GCUL(),
        GCUL(reduce="pca"),
        GCUL(reduce="lda"),
        GCUL(reduce="pca", error_pool="out_of_fold", n_folds=3),
    ],
    expected_failed_checks=expected_failed_checks,
)


# scikit-learn before 1.8 hands pytest a generator of (estimator, check) pairs, which pytest 9
# deprecates (an error here, under filterwarnings = error): the same pairs, ids and marks as a list.
@pytest.mark.parametrize(_CHECKS.args[0], list(_CHECKS.args[1]), **_CHECKS.kwargs)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_check_estimator_fails_only_the_declared_check():
    # GCUL() failed six more checks only because reduce=None refused the n_components=1 that
    # they set ("n_components must be None when reduce is None"); it is now ignored there.
    results = check_estimator(
        GCUL(),
        expected_failed_checks=expected_failed_checks(GCUL()),
        on_fail=None,
        on_skip=None,
    )
    status = {result["check_name"]: result["status"] for result in results}
    assert {name: kind for name, kind in status.items() if kind not in ("passed", "skipped")} == {
        "check_classifiers_train": "xfail"
    }
    assert sum(kind == "passed" for kind in status.values()) >= 40  # the checks did run


def test_n_components_is_ignored_without_a_projection():
    X, y = blobs(n=60)
    plain = GCUL().fit(X, y)
    ignored = GCUL(reduce=None, n_components=1).fit(X, y)
    assert ignored.n_components == 1  # stored as given (get_params round-trips)
    assert ignored.reducer_ is None
    np.testing.assert_array_equal(ignored.cluster_centers_, plain.cluster_centers_)
    np.testing.assert_array_equal(ignored.predict(X), plain.predict(X))


def test_one_grid_over_reduce_and_n_components_scores_every_cell():
    # {reduce: [None, 'pca'], n_components: [None, 5]} gave NaN scores and FitFailedWarning
    # (an error here: filterwarnings = error) for the two reduce=None cells with 5 components.
    rng = np.random.default_rng(3)
    X2, y = blobs(n=60)
    X = np.hstack([X2, rng.normal(0.0, 1.0, (X2.shape[0], 4))])  # 6 features: 5 components fit
    grid = {"reduce": [None, "pca"], "n_components": [None, 5]}
    search = GridSearchCV(GCUL(), grid, cv=3).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert len(scores) == 4 and np.isfinite(scores).all()
    by_params = dict(zip(map(str, search.cv_results_["params"]), scores, strict=True))
    # the two reduce=None cells are the same model
    assert (
        by_params[str({"n_components": None, "reduce": None})]
        == by_params[str({"n_components": 5, "reduce": None})]
    )


def test_the_declared_rejections_are_what_the_checks_see():
    # The reason given for check_classifiers_train, measured on the check's own data
    datasets = pytest.importorskip("sklearn.datasets")
    utils = pytest.importorskip("sklearn.utils")
    X, y = datasets.make_blobs(n_samples=300, random_state=0)
    X, y = utils.shuffle(X, y, random_state=7)
    X = StandardScaler().fit_transform(X)
    measured = []
    for mask in (y != 2, np.ones(y.size, dtype=bool)):
        model = GCUL().fit(X[mask], y[mask])
        y_pred = model.predict(X[mask])
        rejected = ~model.accepts(X[mask])
        measured.append(
            (
                int(model.error_mask_.sum()),
                int(rejected.sum()),
                round(float(np.mean(y_pred == y[mask])), 2),
                round(model.score(X[mask], y[mask]), 2),
            )
        )
        proba_pred = model.classes_[np.argmax(model.predict_proba(X[mask]), axis=1)]
        np.testing.assert_array_equal(proba_pred == y_pred, ~rejected)
    assert measured == [(6, 36, 0.82, 0.97), (22, 67, 0.75, 0.94)]


def test_both_are_classifiers_with_their_parameters():
    assert is_classifier(GCUL()) and is_classifier(LogisticRegression())
    assert GCUL().get_params() == {
        "C": 1.0,
        "error_pool": "in_sample",
        "kmeans_max_iter": 100,
        "lam": 0.15,
        "max_iter": 500,
        "n_components": None,
        "n_folds": 5,
        "random_state": 0,
        "reduce": None,
        "uncertain_label": None,
    }
    assert LogisticRegression().get_params() == {"C": 1.0, "max_iter": 500, "tol": 1e-4}
    model = GCUL().set_params(reduce="pca", n_components=2, lam=0.3)
    assert (model.reduce, model.n_components, model.lam) == ("pca", 2, 0.3)


# ----------------------------------------------------------------------------------------------
# Data: three blobs and a confusion blob with uniform labels (GCUL rejects the latter)
# ----------------------------------------------------------------------------------------------


def blobs(n=150, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    X, y = confusion_blobs(rng, n)
    order = rng.permutation(y.size)  # folds of cross-validation see every blob
    return X[order] * scale, y[order]


# ----------------------------------------------------------------------------------------------
# Pipeline, cross_val_score, GridSearchCV, clone, pickle
# ----------------------------------------------------------------------------------------------


def test_pipeline_with_a_scaler_is_gcul_on_the_scaled_features():
    X, y = blobs(scale=1e3)  # features of another unit: the scaler matters
    pipeline = make_pipeline(StandardScaler(), GCUL()).fit(X, y)
    scaler = StandardScaler().fit(X)
    direct = GCUL().fit(scaler.transform(X), y)
    X_new, _ = blobs(seed=1, scale=1e3)
    np.testing.assert_array_equal(pipeline.predict(X_new), direct.predict(scaler.transform(X_new)))
    np.testing.assert_array_equal(
        pipeline.predict_proba(X_new), direct.predict_proba(scaler.transform(X_new))
    )
    assert pipeline.score(X_new, blobs(seed=1)[1]) == direct.score(
        scaler.transform(X_new), blobs(seed=1)[1]
    )
    assert pipeline[-1].can_reject_


def test_cross_val_score_uses_the_rejection_aware_score():
    X, y = blobs()
    cv = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    scores = cross_val_score(GCUL(), X, y, cv=cv)
    accuracy = cross_val_score(GCUL(), X, y, cv=cv, scoring="accuracy")
    for (train, test), score, acc in zip(cv.split(X, y), scores, accuracy, strict=True):
        model = GCUL().fit(X[train], y[train])
        y_pred = model.predict(X[test])
        rejected = ~model.accepts(X[test])
        assert 0.15 < rejected.mean() < 0.4  # the confusion blob (1/4 of the rows) is rejected
        wrong = (y_pred != y[test]) & ~rejected
        # the same counts divided the same way: 1 - a/n - 0.15 r/n, to a few roundings
        expected = 1.0 - wrong.mean() - 0.15 * rejected.mean()
        assert abs(score - expected) <= 4 * np.finfo(float).eps
        # "accuracy" counts every rejection as an error (lam = 1)
        assert acc == np.mean(y_pred == y[test])
        assert abs(acc - (1.0 - wrong.mean() - rejected.mean())) <= 4 * np.finfo(float).eps
        # rejecting the confusion blob pays at cost 0.15: the score beats phase 1's accuracy
        assert score > np.mean(model.classes_[model.phase1_.predict(X[test])] == y[test])


def test_grid_search_over_reduce_and_n_components():
    X, y = blobs(n=80)
    grid = [{"reduce": [None]}, {"reduce": ["pca", "lda"], "n_components": [1, 2]}]
    search = GridSearchCV(GCUL(), grid, cv=3).fit(X, y)
    assert len(search.cv_results_["params"]) == 5
    assert search.best_params_ in search.cv_results_["params"]
    best = search.best_estimator_
    assert best.get_params() == GCUL(**search.best_params_).get_params()
    np.testing.assert_array_equal(best.predict(X), GCUL(**search.best_params_).fit(X, y).predict(X))
    # in a pipeline, with the step's prefix
    piped = GridSearchCV(
        make_pipeline(StandardScaler(), GCUL()),
        {"gcul__reduce": [None, "pca"]},
        cv=3,
    ).fit(X, y)
    assert piped.best_params_["gcul__reduce"] in (None, "pca")


def test_clone_copies_parameters_not_the_fit():
    model = GCUL(reduce="lda", n_components=1, C=0.5, uncertain_label=-1, lam=0.2)
    fitted = model.fit(*blobs(n=40))
    twin = clone(fitted)
    assert twin.get_params() == model.get_params()
    assert not hasattr(twin, "phase3_") and hasattr(fitted, "phase3_")
    with pytest.raises(NotFittedError):
        twin.predict(blobs(n=40)[0])


@pytest.mark.parametrize("estimator", [GCUL(), LogisticRegression()])
def test_pickle_round_trip_predicts_the_same(estimator):
    X, y = blobs(n=60)
    model = clone(estimator).fit(X, y)
    copy = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(copy.predict(X), model.predict(X))
    np.testing.assert_array_equal(copy.predict_proba(X), model.predict_proba(X))


def test_every_method_needs_fit():
    X, y = blobs(n=20)
    for method in ("predict", "predict_proba", "decision_function", "accepts", "uncertain_proba"):
        with pytest.raises(NotFittedError, match="GCUL instance is not fitted"):
            getattr(GCUL(), method)(X)
    with pytest.raises(NotFittedError):
        GCUL().score(X, y)
    with pytest.raises(NotFittedError):
        GCUL().indicators(X, y)
    with pytest.raises(NotFittedError):
        certify(GCUL(), X, y)


# ----------------------------------------------------------------------------------------------
# Labels and the rejection label
# ----------------------------------------------------------------------------------------------


def test_string_labels_are_classes_and_rejections_say_uncertain():
    X, y = blobs()
    names = np.array(["anger", "calm", "joy"])
    reference = GCUL().fit(X, y)
    model = GCUL().fit(X, names[y])
    np.testing.assert_array_equal(model.classes_, names)
    assert model.uncertain_label_ == "uncertain" == model.UNCERTAIN
    y_pred = model.predict(X)
    expected = np.append(names, "uncertain")[reference.predict(X)]
    np.testing.assert_array_equal(y_pred, expected)
    assert "uncertain" in set(y_pred.tolist())
    # object arrays too, and the certificate reads them
    objects = GCUL().fit(X, names[y].astype(object))
    np.testing.assert_array_equal(objects.predict(X), expected)
    X_cal, y_cal = blobs(seed=2)
    assert model.certify(X_cal, names[y_cal]) == reference.certify(X_cal, y_cal)


def test_a_class_named_uncertain_needs_another_rejection_label():
    X, y = blobs(n=40)
    names = np.array(["calm", "joy", "uncertain"])
    with pytest.raises(ValueError, match="uncertain_label='uncertain' is a class of y"):
        GCUL().fit(X, names[y])
    model = GCUL(uncertain_label="rejected").fit(X, names[y])
    assert set(model.predict(X).tolist()) <= {"calm", "joy", "uncertain", "rejected"}
    with pytest.raises(TypeError, match="uncertain_label must be a string like the labels"):
        GCUL(uncertain_label=-1).fit(X, names[y])


def test_float_labels_get_a_float_rejection_label():
    X, y = blobs(n=40)
    model = GCUL().fit(X, y * 2.0 - 1.0)  # -1.0, 1.0, 3.0 (integral: scikit-learn's classes)
    assert model.uncertain_label_ == 4.0 and isinstance(model.uncertain_label_, float)
    assert model.predict(X).dtype == np.float64


@pytest.mark.parametrize(
    "labels",
    [
        [0, 1, 2],
        [-5, 0, 7],
        [10, 20, 30],
        [-3, -2, -1],
        [0.0, 2.0, 4.0],
        [1e15, 1e15 + 2, 1e15 + 4],
        ["a", "b", "c"],
        ["uncertain_", "uncertaim", "z"],
    ],
)
def test_the_rejection_label_is_never_a_class(labels):
    X, y = blobs(n=40)
    model = GCUL().fit(X, np.asarray(labels)[y])
    assert model.uncertain_label_ not in model.classes_.tolist()
    y_pred = model.predict(X)
    rejected = y_pred == model.uncertain_label_
    np.testing.assert_array_equal(rejected, ~model.accepts(X))
    assert rejected.any()
    assert set(y_pred[~rejected].tolist()) <= set(model.classes_.tolist())


# ----------------------------------------------------------------------------------------------
# What predict_proba, decision_function and score are
# ----------------------------------------------------------------------------------------------


def test_predict_proba_is_phase_three_conditional_on_acceptance():
    X, y = blobs()
    model = GCUL().fit(X, y)
    X_new, _ = blobs(seed=3)
    proba = model.predict_proba(X_new)
    uncertain = model.uncertain_proba(X_new)
    assert proba.shape == (X_new.shape[0], 3)
    # rows sum to 1: K terms each rounded once, then one division (<= (K + 2) eps)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=5 * np.finfo(float).eps)
    # phase 3's K + 1 probabilities are (1 - u) proba and u (softmax over K + 1 scores against
    # the softmax over K of them: relative error <= 2 (K + 3) eps on every entry, and the
    # entries are at most 1)
    full = model.phase3_.predict_proba(X_new)
    joint = np.column_stack([(1.0 - uncertain)[:, None] * proba, uncertain])
    np.testing.assert_allclose(joint, full, rtol=0, atol=12 * np.finfo(float).eps)
    # the argmax is predict's label wherever GCUL accepts
    accepted = model.accepts(X_new)
    assert 0 < accepted.sum() < accepted.size
    y_pred = model.predict(X_new)
    np.testing.assert_array_equal(
        model.classes_[np.argmax(proba, axis=1)][accepted], y_pred[accepted]
    )
    np.testing.assert_array_equal(
        model.classes_[np.argmax(model.decision_function(X_new), axis=1)][accepted],
        y_pred[accepted],
    )
    # rejected exactly where phase 3's uncertain probability is its largest
    np.testing.assert_array_equal(~accepted, np.argmax(full, axis=1) == 3)


def test_binary_decision_function_has_scikit_learns_shape():
    X, y = blobs()
    keep = y < 2
    model = GCUL().fit(X[keep], y[keep])
    assert model.can_reject_
    decision = model.decision_function(X)
    assert decision.shape == (X.shape[0],)
    accepted = model.accepts(X)
    y_pred = model.predict(X)
    np.testing.assert_array_equal((decision > 0)[accepted], y_pred[accepted] == 1)


def test_a_class_phase_three_never_saw_has_probability_zero():
    # When the uncertain cluster takes every training sample of a class, phase 3 has no row for
    # it. Built here by refitting phase 3 on the relabelling that makes class 2 uncertain.
    X, y = blobs(n=60)
    model = GCUL().fit(X, y)
    relabelled = np.where((model.cluster_labels_ == model.uncertain_cluster_) | (y == 2), 3, y)
    model.phase3_ = LogisticRegression().fit(X, relabelled)
    assert model.phase3_.classes_.tolist() == [0, 1, 3]
    proba = model.predict_proba(X)
    assert proba.shape == (X.shape[0], 3) and np.all(proba[:, 2] == 0.0)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=4 * np.finfo(float).eps)
    decision = model.decision_function(X)
    assert np.all(decision[:, 2] == -np.inf) and np.all(np.isfinite(decision[:, :2]))
    y_pred = model.predict(X)
    assert 2 not in set(y_pred.tolist())
    accepted = model.accepts(X)
    np.testing.assert_array_equal(np.argmax(proba, axis=1)[accepted], y_pred[accepted])


def test_score_is_accuracy_with_rejections_costing_lam():
    X, y = blobs()
    model = GCUL(lam=0.3).fit(X, y)
    X_new, y_new = blobs(seed=4)
    y_pred = model.predict(X_new)
    rejected = ~model.accepts(X_new)
    wrong = (y_pred != y_new) & ~rejected
    eps = np.finfo(float).eps
    assert abs(model.score(X_new, y_new) - (1 - wrong.mean() - 0.3 * rejected.mean())) <= 4 * eps
    # lam only enters the score
    other = clone(model).set_params(lam=0.0).fit(X, y)
    np.testing.assert_array_equal(other.predict(X_new), y_pred)
    assert abs(other.score(X_new, y_new) - (1 - wrong.mean())) <= 4 * eps
    # = phase 1's accuracy + U_joint(lam) of the same samples
    base_wrong, selective_wrong, rejected_again = model.indicators(X_new, y_new)
    np.testing.assert_array_equal(rejected_again, rejected)
    eps_base, rho = base_wrong.mean(), rejected.mean()
    eps_sel = selective_wrong.sum() / (~rejected).sum()
    u_joint = gcul_theory.joint_utility(0.3, eps_base, eps_sel, rho)
    assert abs(model.score(X_new, y_new) - ((1 - eps_base) + u_joint)) <= 8 * eps
    # sample weights: a weight-2 row counts as two rows
    weights = np.where(np.arange(y_new.size) % 2 == 0, 2.0, 1.0)
    doubled = np.concatenate([np.arange(y_new.size), np.arange(0, y_new.size, 2)])
    assert (
        abs(
            model.score(X_new, y_new, sample_weight=weights)
            - model.score(X_new[doubled], y_new[doubled])
        )
        <= 8 * eps
    )


def test_score_is_the_accuracy_of_a_model_that_cannot_reject():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(-20.0, 1.0, (30, 2)), rng.normal(20.0, 1.0, (30, 2))])
    y = np.repeat(["a", "b"], 30)
    model = GCUL().fit(X, y)
    assert not model.can_reject_
    assert model.score(X, y) == 1.0 == np.mean(model.predict(X) == y)
    assert np.all(model.uncertain_proba(X) == 0.0)


def test_n_iter_counts_each_phase():
    pytest.importorskip("sklearn.cluster")
    from sklearn.cluster import KMeans

    X, y = blobs()
    model = GCUL().fit(X, y)
    assert model.n_iter_.tolist() == [
        model.phase1_.n_iter_,
        KMeans(len(model.init_centers_), init=model.init_centers_, n_init=1).fit(X).n_iter_,
        model.phase3_.n_iter_,
    ]
    assert np.all(model.n_iter_ >= 1)


def test_feature_names_are_kept_from_a_dataframe():
    pd = pytest.importorskip("pandas")
    X, y = blobs(n=40)
    frame = pd.DataFrame(X, columns=["valence", "arousal"])
    model = GCUL().fit(frame, y)
    assert model.feature_names_in_.tolist() == ["valence", "arousal"]
    np.testing.assert_array_equal(model.predict(frame), GCUL().fit(X, y).predict(X))


# ----------------------------------------------------------------------------------------------
# Certification through a pipeline
# ----------------------------------------------------------------------------------------------


def test_certify_a_fitted_pipeline_transforms_through_its_first_steps():
    X, y = blobs(scale=1e3)
    X_cal, y_cal = blobs(seed=5, scale=1e3)
    pipeline = make_pipeline(StandardScaler(), GCUL()).fit(X, y)
    scaler = pipeline[0]
    expected = pipeline[-1].certify(scaler.transform(X_cal), y_cal)
    assert certify(pipeline, X_cal, y_cal) == expected
    with pytest.raises(TypeError, match="last step is one; got LogisticRegression"):
        certify(Pipeline([("scale", StandardScaler()), ("lr", LogisticRegression())]), X, y)


def test_cross_fit_of_a_pipeline_refits_the_scaler_on_each_training_part():
    X, y = blobs(n=60, scale=1e3)
    pipeline = make_pipeline(StandardScaler(), GCUL())
    cert = certify_cross_fit(pipeline, X, y, n_splits=3, seed=2)
    folds = random_folds(y.size, 3, seed=2)
    for k, fold in enumerate(cert.folds):
        held = folds == k
        scaler = StandardScaler().fit(X[~held])
        model = GCUL().fit(scaler.transform(X[~held]), y[~held])
        direct = model.certify(scaler.transform(X[held]), y[held], 0.15, 0.05 / 3)
        assert (fold.gain_lower, fold.gain_upper, fold.n) == (
            direct.gain_lower,
            direct.gain_upper,
            direct.n,
        )
    assert not hasattr(pipeline[-1], "phase3_")  # the pipeline given is not fitted


# ----------------------------------------------------------------------------------------------
# One import path: from simulations import GCUL (loaded on first use)
# ----------------------------------------------------------------------------------------------


def test_the_public_api_is_importable_from_the_package():
    import simulations
    from simulations import GCUL as PackageGCUL
    from simulations import Certificate, make_dataset, reproduce, run_sweep
    from simulations.certification import Certificate as ModuleCertificate
    from simulations.reproduce import reproduce as module_reproduce
    from simulations.sweep import run_sweep as module_run_sweep
    from simulations.synthetic import make_dataset as module_make_dataset

    assert PackageGCUL is GCUL
    assert Certificate is ModuleCertificate
    assert make_dataset is module_make_dataset and run_sweep is module_run_sweep
    # the package attribute stays the function even once the module of that name is imported
    assert reproduce is module_reproduce and simulations.reproduce is module_reproduce
    assert sorted(simulations.__all__) == [
        "Certificate",
        "GCUL",
        "make_dataset",
        "reproduce",
        "run_sweep",
    ]
    assert set(simulations.__all__) <= set(dir(simulations))
    with pytest.raises(AttributeError, match="module 'simulations' has no attribute 'gcul_model'"):
        simulations.gcul_model  # noqa: B018


def test_the_parent_of_a_sweep_does_not_import_scikit_learn():
    # scikit-learn (with scipy.stats) costs 0.3-0.4 s of CPU to import; the sweep's workers need
    # it for GCUL (and import scipy.stats for the orthant probabilities anyway), the process that
    # schedules them, writes the tables and draws the figures does not
    import subprocess
    import sys

    code = (
        "import sys; import simulations.sweep, simulations.cli, simulations.report, "
        "simulations.figures, simulations.models, simulations.baseline_figures, "
        "simulations.baselines, simulations.reproduce; "
        "from simulations.models import kmeans, single_threaded_blas; "
        "print('sklearn' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    # nor does the package itself: its exports load on first use
    code = (
        "import sys; import simulations; "
        "print(sorted(m for m in ('sklearn', 'simulations.gcul', 'simulations.sweep') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
