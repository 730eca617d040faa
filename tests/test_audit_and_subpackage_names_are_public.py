"""The audit page's names and the classic/simulate subpackages are reachable from ``embias``.

``embias.audit_html`` and ``embias.AuditOptions`` are the audit page's API next to
``embias.audit_report``; ``embias.classic`` and ``embias.simulate`` are attributes of
``embias`` in a fresh interpreter (before any of their names was used), like
``embias.classifier`` and ``embias.studies``.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import embias
import embias.audit


def test_audit_html_and_audit_options_are_the_audit_modules_objects() -> None:
    assert embias.audit_html is embias.audit.audit_html
    assert embias.AuditOptions is embias.audit.AuditOptions
    assert {"audit_html", "AuditOptions", "audit_report"} <= set(embias.__all__)
    # the exported class is the one audit_report checks options= against
    assert embias.AuditOptions(rope=0.05).rope == 0.05


def test_classic_and_simulate_are_attributes_in_a_fresh_interpreter() -> None:
    code = textwrap.dedent("""
        import sys
        import embias
        print(sorted(n for n in ("embias.classic", "embias.simulate") if n in sys.modules))
        print(embias.classic.__name__, embias.simulate.__name__)
        print(embias.classic.weat is embias.weat,
              embias.simulate.simulate_weat is embias.simulate_weat)
        print("classic" in dir(embias), "simulate" in dir(embias))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "embias.classic embias.simulate", "True True",
                                        "True True"]
