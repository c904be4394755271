"""The web chat page end to end in a real headless browser (Debian's chromium, driven by
Selenium through the system chromedriver; nothing downloads a browser). Skips without
chromium, fails under CI=true."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_helpers import require_program, start_serve, stop

CHROMIUM = ("chromium", "chromium-browser")


@pytest.fixture
def browser() -> Iterator[object]:
    binary = next((shutil.which(b) for b in CHROMIUM if shutil.which(b)), None) or require_program(
        "chromium"
    )
    driver_path = require_program("chromedriver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,800",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_type_a_message_and_see_the_reply_and_the_state(browser: object, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    assert isinstance(browser, WebDriver)
    server, port = start_serve("memory://", args=())  # the default pipeline
    try:
        browser.get(f"http://127.0.0.1:{port}/")
        wait = WebDriverWait(browser, 30)
        wait.until(ready.text_to_be_present_in_element((By.ID, "session-id"), "session"))
        wait.until(ready.text_to_be_present_in_element((By.ID, "services-hint"), "Restaurants"))
        box = browser.find_element(By.ID, "text")
        box.send_keys("I want to book a table for two at an Italian place in San Jose\n")
        reply = wait.until(
            ready.presence_of_element_located((By.CSS_SELECTOR, ".msg.bot:not(.pending)"))
        )
        assert reply.text.strip() and "Error" not in reply.text
        inspector = browser.find_element(By.ID, "inspector-body").text
        assert "Restaurants" in inspector and "San Jose" in inspector
        # the intent the NLU opened (a booking naming no restaurant opens the search, which
        # needs nothing more, since the values choose among intents the scorer weighed alike)
        assert "INFORM_INTENT intent = FindRestaurants" in inspector
        box.send_keys("at 7 pm tomorrow at Sushi Zone\n")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".msg.bot:not(.pending)")) == 2)
        browser.find_elements(By.CSS_SELECTOR, ".msg.bot")[0].click()  # inspect turn 1 again
        assert "turn 1" in browser.find_element(By.ID, "inspected").text
        browser.find_elements(By.CSS_SELECTOR, ".msg.bot")[1].click()
        shot = tmp_path / "chat_page.png"
        assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
        print(f"screenshot: {shot}")
    finally:
        stop(server)


def test_the_inspector_shows_a_searchs_results_as_tables(browser: object) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    assert isinstance(browser, WebDriver)
    server, port = start_serve("memory://", args=())
    try:
        browser.get(f"http://127.0.0.1:{port}/")
        wait = WebDriverWait(browser, 30)
        wait.until(ready.text_to_be_present_in_element((By.ID, "services-hint"), "Restaurants"))
        browser.find_element(By.ID, "text").send_keys("american food in chicago please\n")
        wait.until(ready.presence_of_element_located((By.CSS_SELECTOR, ".msg.bot:not(.pending)")))
        inspector = browser.find_element(By.ID, "inspector-body").text
        assert "FindRestaurants(" in inspector and "restaurant_name" in inspector
        assert "[object" not in inspector  # rows as tables, never an element's name
    finally:
        stop(server)
