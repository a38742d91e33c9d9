"""The host-link frame format in Python (fhe_hw.link.protocol): CRC, SLIP, responses."""

import pytest

from fhe_hw.link.protocol import (
    END,
    ESC,
    ESC_END,
    ESC_ESC,
    Command,
    FrameError,
    SlipDecoder,
    Status,
    crc16,
    decode_response,
    encode_frame,
    encode_request,
    slip_encode,
)


def test_crc16_is_ccitt_false_on_the_standard_check_string():
    assert crc16(b"123456789") == 0x29B1


def test_crc_of_a_body_with_its_crc_appended_is_zero():
    body = bytes(range(40))
    assert crc16(body + crc16(body).to_bytes(2, "big")) == 0


def test_slip_stuffs_end_and_esc_and_frames_with_end():
    assert slip_encode(bytes([1, END, 2, ESC, 3])) == \
        bytes([END, 1, ESC, ESC_END, 2, ESC, ESC_ESC, 3, END])


def test_decoder_returns_the_stuffed_bodies_and_skips_empty_frames():
    bodies = [bytes([END, ESC, 7]), bytes(range(256)), b"x"]
    wire = b"".join(slip_encode(b) for b in bodies) + bytes([END, END])
    assert SlipDecoder().feed(wire) == [(b, True) for b in bodies]


def test_decoder_marks_a_bad_escape_and_recovers_at_the_next_end():
    frames = SlipDecoder().feed(bytes([END, 1, ESC, 0x55, 2, END]) + slip_encode(b"ok"))
    assert frames == [(bytes([1, 2]), False), (b"ok", True)]


def test_decoder_keeps_a_frame_split_across_feeds():
    decoder, wire = SlipDecoder(), encode_request(5, Command.STATUS)
    assert decoder.feed(wire[:3]) == []
    (body, ok), = decoder.feed(wire[3:])
    assert ok and body[:2] == bytes([5, Command.STATUS]) and crc16(body) == 0


def test_decode_response_splits_seq_cmd_status_and_payload():
    frame = encode_frame(bytes([9, Command.READ, Status.OK, 1, 2, 3]))
    (body, _), = SlipDecoder().feed(frame)
    response = decode_response(body)
    assert (response.seq, response.cmd, response.status, response.payload) == \
        (9, Command.READ, Status.OK, b"\x01\x02\x03")


def test_decode_response_rejects_a_bad_crc():
    body = bytes([1, 2, 0, 0, 0])
    with pytest.raises(FrameError, match="CRC"):
        decode_response(body)


def test_decode_response_rejects_a_short_frame():
    with pytest.raises(FrameError, match="at least 5 bytes"):
        decode_response(b"\x01\x02")
