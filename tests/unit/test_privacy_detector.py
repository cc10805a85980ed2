"""The PII detector: what it finds, what it leaves, that it never touches the network, and that it
fails closed (`DetectorUnavailable`) when it cannot be built or run."""

from __future__ import annotations

import socket
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import spacy

from synapse_agents.errors import DetectorUnavailable
from synapse_agents.privacy import detector as detector_module
from synapse_agents.privacy.detector import CHUNK, Detector, detector, reset_detector

FOUND = [
    ('Write to ana.garcia@example.com today.', 'ana.garcia@example.com', 'EMAIL_ADDRESS'),
    ('Call +34 612 345 678 tomorrow.', '+34 612 345 678', 'PHONE_NUMBER'),
    ('Call +44 20 7946 0958 tomorrow.', '+44 20 7946 0958', 'PHONE_NUMBER'),
    ('Ruf an: +49 30 901820 bitte.', '+49 30 901820', 'PHONE_NUMBER'),
    ('Appelez le 06 12 34 56 78 svp.', '06 12 34 56 78', 'PHONE_NUMBER'),
    ('Chiama il +39 06 6982 oggi.', '+39 06 6982', 'PHONE_NUMBER'),
    ('Call (415) 555-0132 now.', '(415) 555-0132', 'PHONE_NUMBER'),
    # Unbroken: not the Steuer-ID or the card its digits without the + would be.
    ('Llama al +34670214211; gracias.', '+34670214211', 'PHONE_NUMBER'),
    ('Ring +441134960547 today.', '+441134960547', 'PHONE_NUMBER'),
    ('Pay to ES91 2100 0418 4502 0005 1332 please.', 'ES91 2100 0418 4502 0005 1332', 'IBAN_CODE'),
    ('Card 4111 1111 1111 1111 expires soon.', '4111 1111 1111 1111', 'CREDIT_CARD'),
    ('Card 180071581074567 (JCB) on file.', '180071581074567', 'CREDIT_CARD'),
    ('Login from 192.168.14.200 failed.', '192.168.14.200', 'IP_ADDRESS'),
    ('Phone call logged from 82.16.47.183 today.', '82.16.47.183', 'IP_ADDRESS'),
    ('Mi DNI es 12345678Z.', '12345678Z', 'ES_NIF'),
    ('Mi NIE es X1234567L.', 'X1234567L', 'ES_NIE'),
    ('Mon NIR: 2 84 05 73 108 043 19.', '2 84 05 73 108 043 19', 'FR_NIR'),
    ('Mon NIR est 284057314104396.', '284057314104396', 'FR_NIR'),  # Luhn-valid too: not a card
    ('Steuer-ID 86095742719 gemeldet.', '86095742719', 'DE_TAX_ID'),
    ('Codice fiscale RSSMRA85T10A562S registrato.', 'RSSMRA85T10A562S', 'IT_FISCAL_CODE'),
    ('NINO AB 12 34 56 C on file.', 'AB 12 34 56 C', 'UK_NINO'),
    ('SSN 536-22-1234 on file.', '536-22-1234', 'US_SSN'),
]


@pytest.fixture(scope='module')
def built() -> Detector:
    return detector()


@pytest.mark.parametrize(('text', 'value', 'entity'), FOUND)
def test_it_finds_each_kind_of_identifier(built: Detector, text: str, value: str, entity: str) -> None:
    found = [(text[f.start : f.end], f.entity) for f in built.find(text, keep=['PERSON', 'LOCATION'])]
    assert found == [(value, entity)]
    # With names redacted too, an identifier the NER takes into a name's span is still itself.
    assert (value, entity) in [(text[f.start : f.end], f.entity) for f in built.find(text, keep=[])]


def test_a_long_text_is_read_whole(built: Detector) -> None:
    filler = 'All quiet here. ' * 1_300  # 20,800 characters: past one window
    edge = CHUNK - 8  # a phone across the first window's end
    text = filler[:edge] + ' +34 612 345 678 ' + filler + ' Last: ana@example.com.'
    found = [(text[f.start : f.end], f.entity) for f in built.find(text, keep=['PERSON', 'LOCATION'])]
    assert found == [('+34 612 345 678', 'PHONE_NUMBER'), ('ana@example.com', 'EMAIL_ADDRESS')]


def test_a_wrong_key_is_no_nir(built: Detector) -> None:
    assert [f.entity for f in built.find('Mon NIR: 2 84 05 73 108 043 32.')] != ['FR_NIR']


def test_names_stay_in_clear_unless_asked(built: Detector) -> None:
    text = 'Maria Lopez wrote from maria@example.org.'
    assert [f.entity for f in built.find(text, keep=['PERSON'])] == ['EMAIL_ADDRESS']
    everything = [(text[f.start : f.end], f.entity) for f in built.find(text, keep=[])]
    assert ('Maria Lopez', 'PERSON') in everything


@pytest.mark.parametrize(
    'text',
    [
        'The meeting is on 12 March 2024 at 10:30 in room 4.',
        'Version 3.11.4 fixed 27 bugs; order 48213 costs 1,250.00 EUR.',
        'See section 12.3, page 245, and call back in 15 minutes.',
    ],
)
def test_ordinary_numbers_are_left_alone(built: Detector, text: str) -> None:
    assert built.find(text, keep=['PERSON', 'LOCATION']) == []


def test_building_and_detecting_touch_no_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    attempts: list[Any] = []

    def refuse(self: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise OSError('no network in this test')

    monkeypatch.setattr(socket.socket, 'connect', refuse)
    monkeypatch.setattr(socket.socket, 'connect_ex', refuse)
    monkeypatch.setattr(socket, 'create_connection', lambda *a, **k: refuse(None, a))  # type: ignore[arg-type]
    monkeypatch.setattr(socket, 'getaddrinfo', lambda *a, **k: refuse(None, a))  # type: ignore[arg-type]
    monkeypatch.setenv('HOME', str(tmp_path))  # tldextract's cache would land here
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    reset_detector()
    try:
        fresh = detector()
        found = fresh.find('Mail ana@example.co.uk or bob@mail.example.com.br now.')
    finally:
        reset_detector()
    assert [f.entity for f in found] == ['EMAIL_ADDRESS', 'EMAIL_ADDRESS']
    assert attempts == []
    assert not (tmp_path / 'cache' / 'python-tldextract').exists()


def test_a_missing_model_is_detector_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(detector_module, 'MODEL_PACKAGE', 'no_such_spacy_pipeline')
    reset_detector()
    try:
        with pytest.raises(DetectorUnavailable, match='no_such_spacy_pipeline is not installed'):
            detector()
        # A failed build is not kept: the next call tries again (and fails again here).
        with pytest.raises(DetectorUnavailable):
            detector()
    finally:
        reset_detector()


def test_an_analyzer_error_is_detector_unavailable() -> None:
    class Broken:
        def analyze(self, **options: Any) -> Any:
            raise RuntimeError('spaCy crashed')

    with pytest.raises(DetectorUnavailable, match='spaCy crashed'):
        Detector(Broken()).find('ana@example.com')


def test_the_pipeline_fits_the_installed_spacy(built: Detector) -> None:
    meta = built.analyzer.nlp_engine.nlp['en'].meta
    installed = version('spacy')
    assert spacy.util.is_compatible_version(installed, meta['spacy_version']), (
        installed,
        meta['spacy_version'],
    )
    assert 'ner' in built.analyzer.nlp_engine.nlp['en'].pipe_names
