"""Issue 43 from Python: every argument is checked by type before any work and an error
names the Python parameter (never the command's flag), with the valid choices; progress
off a terminal is plain lines, as the command prints it."""

import time

import pytest

import lagoon

OK = "syn:read=100,size=4k,arrival=qd:4,count=50"


def test_switches_are_booleans_named_before_any_work(tmp_path):
    out = tmp_path / "o"
    t = time.monotonic()
    # 'yes' (any string) ran a whole sensitivity search.
    for kw in ["sensitivity", "quick", "render_only", "refresh_evidence", "progress"]:
        with pytest.raises(TypeError, match=rf"^{kw} must be True or False, got 'yes'$"):
            lagoon.reproduce("piq", out=out, **{kw: "yes"})
    with pytest.raises(TypeError, match=r"^lenient must be True or False, got 1$"):
        lagoon.run(OK, lenient=1)
    with pytest.raises(TypeError, match=r"^progress must be True or False"):
        lagoon.sweep({"workload": [OK]}, progress="no")
    assert time.monotonic() - t < 5 and not out.exists()


def test_run_arguments_name_their_parameter():
    cases = [
        (dict(workload=[]), ValueError, r"^workload is an empty list; give a trace path"),
        (dict(workload=""), ValueError, r"^workload is an empty path"),
        (dict(workload=[OK, ""]), ValueError, r"^workload\[1\] is an empty path"),
        (dict(workload=OK, ssd=None), TypeError,
         r"^ssd must be a preset name, a TOML path or a dict, got None$"),
        (dict(workload=OK, ssd=123), TypeError, r"^ssd must be .*, got 123$"),
        (dict(workload=OK, ssd=""), ValueError, r"^ssd is an empty path"),
        (dict(workload=OK, arch=None), TypeError, r"^arch must be a back end's name, got None$"),
        (dict(workload=OK, seed=-1), ValueError, r"^seed must be in 0\.\.=18446744073709551615, got -1$"),
        (dict(workload=OK, seed=1.5), TypeError, r"^seed must be a whole number"),
        (dict(workload=OK, repeat=0), ValueError, r"^repeat must be in 1\.\."),
        (dict(workload=OK, host_queue=0), ValueError, r"^host_queue must be in 1\.\.=65536"),
        (dict(workload=OK, mesh=8), TypeError, r"^mesh must be ROWSxCOLS, got 8$"),
        (dict(workload=OK, overrides=[1]), TypeError, r"^overrides must be a dict"),
    ]
    for kwargs, kind, pattern in cases:
        with pytest.raises(kind, match=pattern):
            lagoon.run(**kwargs)


def test_a_value_the_command_refuses_names_the_keyword_with_its_choices():
    with pytest.raises(ValueError) as e:
        lagoon.run(OK, arch="venise")
    msg = str(e.value)
    assert msg.startswith("arch: invalid value 'venise'"), msg
    assert "[possible values: baseline," in msg and "a similar value exists: 'venice'" in msg, msg
    assert "--arch" not in msg and "<ARCH>" not in msg, msg
    with pytest.raises(ValueError, match=r"^host_scheduler: invalid value 'fifo'.*possible values"):
        lagoon.run(OK, host_scheduler="fifo")
    with pytest.raises(ValueError, match=r"^format: invalid value 'csv'"):
        lagoon.run(OK, format="csv")
    # Errors the run's own checks word name the keyword too.
    with pytest.raises(lagoon.LagoonError) as e:
        lagoon.run(OK, design="nope")
    assert str(e.value).startswith("design nope: unknown configuration (known: "), str(e.value)
    with pytest.raises(lagoon.LagoonError) as e:
        lagoon.run(OK, host_queue=8)
    msg = str(e.value)
    assert "host_queue sets the host scheduler's queue length: give host_scheduler too" in msg, msg
    # ... and a correct call runs.
    assert lagoon.run(OK, arch="venice").report["requests"] == 50


def test_progress_off_a_terminal_is_plain_lines(capsys, monkeypatch):
    monkeypatch.setenv("LAGOON_PROGRESS_EVERY_S", "0")
    df = lagoon.sweep({"workload": [OK], "seed": [1, 2, 3]})
    assert df["error"].isna().all()
    err = capsys.readouterr().err
    assert "\r" not in err, repr(err)
    assert sorted(err.splitlines()) == ["sweep: 1/3", "sweep: 2/3", "sweep: 3/3"], repr(err)
    # At the default 10 s, a short sweep prints its end only.
    monkeypatch.delenv("LAGOON_PROGRESS_EVERY_S")
    lagoon.sweep({"workload": [OK], "seed": [1, 2]})
    assert capsys.readouterr().err == "sweep: 2/2\n"
