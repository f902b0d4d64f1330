"""The inbox page in a real browser: Debian's headless Chromium driven by Selenium
against the Serve app on 127.0.0.1. An agent token is refused; a resolver sees seed
001's budget dispute with both values and their provenance, sees a new dispute
arrive live, reads hostile text as text, and settles the budget by keyboard; the
store then shows the winner active, decided by the resolver. A screenshot is saved
under the test's tmp dir. (`make test` installs chromium and chromium-driver
where they are missing: this test never skips.)"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import pytest
from scenarios import T0
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from vault_ray import Fact

from .served import served

CHROMIUM, DRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
HOSTILE = "<script>alert(1)</script>"
# --disable-dev-shm-usage: a container's /dev/shm may be 64 MB, too small for a renderer;
# the background flags keep a busy 2-core machine from parking the headless renderer.
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
         "--no-first-run", "--disable-extensions", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
         "--disable-backgrounding-occluded-windows", "--window-size=1100,1400")


def _start_chromium(profile: Path):
    """A headless Chromium whose renderer has answered once, or None. A renderer that
    does not open a blank page in 20 s (seen once in CI on a loaded machine) is a
    browser start that went wrong, not a finding about the inbox: it is retried."""
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    driver.set_page_load_timeout(20)
    try:
        driver.get("about:blank")
    except WebDriverException:
        driver.quit()
        return None
    driver.set_page_load_timeout(60)
    return driver


@pytest.fixture(scope="module")
def store(serve_port, tmp_path_factory):
    """One served store for the module's tests (a Serve app takes 7-14 s to start here)."""
    with served(tmp_path_factory.mktemp("inbox"), serve_port, event_poll_s=0.25) as found:
        yield found


@pytest.fixture(scope="module")
def browser(store, tmp_path_factory):
    """One headless Chromium for the module's tests; it quits before the store's app goes."""
    assert CHROMIUM.exists() and DRIVER.exists(), "run `make setup`: it installs chromium and chromium-driver"
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not look anything up
    profiles = tmp_path_factory.mktemp("chromium")
    driver = next(filter(None, (_start_chromium(profiles / f"profile-{n}") for n in range(3))), None)
    assert driver is not None, "headless Chromium started three times and its renderer never answered"
    yield driver
    driver.quit()


def _sign_in(driver, url: str, token: str) -> None:
    driver.delete_all_cookies()
    driver.get(url + "/inbox")
    field = driver.find_element(By.ID, "token")
    field.send_keys(token)
    field.send_keys(Keys.ENTER)


def _wait(driver, seconds: float, condition) -> None:
    """Until `condition(driver)`; an element the page re-rendered between finding and reading it is looked up again."""
    WebDriverWait(driver, seconds, ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def _card(driver, entity: str):
    return next(c for c in driver.find_elements(By.CSS_SELECTOR, "li.card") if
                c.find_element(By.TAG_NAME, "h2").text.startswith(entity))


def test_a_resolver_settles_the_budget_dispute_in_the_browser(store, browser, tmp_path):
    store.client("planner").add("My budget is 5000 dollars", observed_at=T0, session="trip-planning")
    (budget,) = store.client("chat").add("My budget is 9000 dollars", observed_at=T0 + timedelta(hours=1),
                                         session="chat-42").decisions
    store.client("scraper").add_facts(Fact("user.budget.trip", HOSTILE, HOSTILE, source=HOSTILE))
    store.client("planner").add_facts(Fact("user.budget.trip", "The trip budget is 300", "300"))
    resolver, agent = store.token("dana", role="resolver"), store.token("chat-bot")

    _sign_in(browser, store.url, agent)
    assert "cannot open the inbox" in browser.find_element(By.ID, "refused").text
    assert browser.find_elements(By.CSS_SELECTOR, "li.card") == []

    _sign_in(browser, store.url, resolver)
    _wait(browser, 30, lambda d: "live" in d.find_element(By.TAG_NAME, "body").get_attribute("class"))
    card = _card(browser, "user.budget")
    text = card.text
    for seen in ("5000 dollars", "9000 dollars", "planner", "chat", "trip-planning", "chat-42",
                 "My budget is 9000 dollars", "needs you", "0.50"):
        assert seen in text, seen
    assert card == browser.find_elements(By.CSS_SELECTOR, "li.card")[0] or "needs you" in text

    hostile = _card(browser, "user.budget.trip")
    assert HOSTILE in hostile.text  # shown as text, never run
    assert browser.execute_script("return document.scripts.length") == 1
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018

    # a new dispute arrives while the page is open: it appears without a reload
    store.client("billing").add("I pay with PayPal", observed_at=T0)
    store.client("chat").add("Charge it to my Visa", observed_at=T0 + timedelta(hours=1))
    _wait(browser, 20, lambda d: "user.payment" in d.find_element(By.ID, "cards").text)
    browser.save_screenshot(str(tmp_path / "inbox.png"))
    browser.set_window_size(412, 915)  # a phone: nothing wider than the screen
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    browser.save_screenshot(str(tmp_path / "inbox-phone.png"))

    # settle the budget by keyboard: the current value wins, with a note
    card = _card(browser, "user.budget")
    choice = card.find_elements(By.CSS_SELECTOR, "input[type=radio]")[0]
    choice.send_keys(Keys.SPACE)
    assert choice.is_selected()
    card.find_element(By.TAG_NAME, "textarea").send_keys("Confirmed with the user by phone")
    card.find_element(By.CSS_SELECTOR, "button[type=submit]").send_keys(Keys.ENTER)
    _wait(browser, 30, lambda d: f"Resolved {budget.dispute_id}" in d.find_element(By.TAG_NAME, "main").text)
    assert budget.dispute_id not in browser.find_element(By.ID, "cards").get_attribute("innerHTML")

    settled = store.vault.dispute(budget.dispute_id)
    winner = settled.incumbents[0]
    assert settled.status == "resolved" and settled.resolution.winner == winner
    assert settled.resolution.decided_by == "dana" and settled.resolution.note == "Confirmed with the user by phone"
    assert store.vault.claim(winner).status == "active" and store.vault.claim(budget.claim_id).status == "superseded"
    browser.get("about:blank")  # close the page's event stream
    assert (tmp_path / "inbox.png").stat().st_size > 10_000


def test_the_api_docs_render_in_the_browser_with_no_network(store, browser, tmp_path):
    """/docs of the Serve app draws every route from the service's own files: this
    machine reaches no CDN, and the page used to stay blank."""
    browser.set_window_size(1100, 1400)  # a desktop window (the inbox test ends on a phone's)
    browser.get(store.url + "/docs")
    _wait(browser, 60, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")) >= 10)
    paths = {e.get_attribute("data-path") or e.text for e in browser.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")}
    browser.save_screenshot(str(tmp_path / "docs.png"))
    assert {"/v1/facts", "/v1/search"} <= paths, sorted(paths)
