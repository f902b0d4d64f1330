"""A refused policy change names the setting at fault and the value given for it, in the
library and over HTTP (where nothing changes)."""

from __future__ import annotations

import httpx
import pytest

from vault_ray import InvalidPolicy, Policy


@pytest.mark.parametrize(("change", "field", "value"), [
    ({"align_threshold": 7}, "align_threshold", 7),
    ({"ask_threshold": -0.5}, "ask_threshold", -0.5),
    ({"ask_threshold": 0.95}, "ask_threshold", 0.95),  # above align_threshold (0.85)
    ({"half_life_days": 0}, "half_life_days", 0),
])
def test_the_library_names_the_offending_setting_and_value(change, field, value):
    with pytest.raises(InvalidPolicy) as refused:
        Policy().updated(**change)
    assert (refused.value.field, refused.value.value) == (field, value)


def test_http_reports_the_value_sent_not_another_setting(served_app):
    admin = {"Authorization": f"Bearer {served_app.token('ops', 'admin')}"}
    before = httpx.get(served_app.url + "/v1/policy", headers=admin).json()
    answer = httpx.patch(served_app.url + "/v1/policy", json={"align_threshold": 7}, headers=admin)
    problem = answer.json()
    assert answer.status_code == 422 and problem["type"].endswith(":InvalidPolicy"), problem
    assert problem["value"] == 7 and problem["field"] == "align_threshold" and "align_threshold 7" in problem["detail"]
    assert httpx.get(served_app.url + "/v1/policy", headers=admin).json() == before
