package org.lightwire.romiop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;

import org.jacorb.orb.giop.RequestInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.romiop.ft.StateHelper;

/** The state requests, byte for byte, and as JacORB's server side reads them. */
class StateRequestsTest
{
    private static final byte[] KEY = "abc".getBytes(StandardCharsets.US_ASCII);
    private static JacorbReplies jacorb;

    @BeforeAll
    static void startOrb()
    {
        jacorb = new JacorbReplies();
    }

    @AfterAll
    static void stopOrb()
    {
        jacorb.close();
    }

    private static byte[] bytes(final int... v)
    {
        final byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++)
        {
            b[i] = (byte)v[i];
        }
        return b;
    }

    @Test
    void getStateIsABigEndianTwoWayGiop12RequestWithoutBody()
    {
        final byte[] expected = bytes(
            'G', 'I', 'O', 'P', 1, 2, 0, 0, 0, 0, 0, 40,
            0, 0, 0, 7,                                  // request id
            3, 0, 0, 0,                                  // response flags, reserved
            0, 0, 0, 0,                                  // KeyAddr, padding to 4
            0, 0, 0, 3, 'a', 'b', 'c', 0,                // object key, padding
            0, 0, 0, 10, 'g', 'e', 't', '_', 's', 't', 'a', 't', 'e', 0, 0, 0,
            0, 0, 0, 0);                                 // no service context; no body, so no padding to 8
        assertArrayEquals(expected, StateRequests.getState(7, KEY));
    }

    @Test
    void setStateStartsItsBodyOnAnEightByteBoundaryOfTheMessage()
    {
        final byte[] expected = bytes(
            'G', 'I', 'O', 'P', 1, 2, 0, 0, 0, 0, 0, 51,
            0xFF, 0xFF, 0xFF, 0xFE,
            3, 0, 0, 0,
            0, 0, 0, 0,
            0, 0, 0, 3, 'a', 'b', 'c', 0,
            0, 0, 0, 10, 's', 'e', 't', '_', 's', 't', 'a', 't', 'e', 0, 0, 0,
            0, 0, 0, 0,
            0, 0, 0, 0,                                  // header ends at 52: padded to 56 (a 4-aligned writer would not pad)
            0, 0, 0, 3, 9, 8, 7);
        assertArrayEquals(expected, StateRequests.setState(0xFFFF_FFFEL, KEY, new byte[] {9, 8, 7}));
    }

    @Test
    void jacorbReadsTheRequestsTargetOperationAndStateWhateverTheKeyLength()
    {
        for (int keyLength = 0; keyLength <= 9; keyLength++)
        {
            final byte[] key = new byte[keyLength];
            for (int i = 0; i < keyLength; i++)
            {
                key[i] = (byte)(0xF0 + i);
            }
            final byte[] state = new byte[keyLength * 3 + 1];
            for (int i = 0; i < state.length; i++)
            {
                state[i] = (byte)(i * 7 + 1);
            }
            final byte[] set = StateRequests.setState(40 + keyLength, key, state);
            assertEquals(set.length - GiopMessage.HEADER_LENGTH, GiopMessage.bodySize(set));
            try (RequestInputStream in = jacorb.request(set))
            {
                assertEquals(40 + keyLength, in.req_hdr.request_id);
                assertEquals("set_state", in.req_hdr.operation);
                assertArrayEquals(key, in.req_hdr.target.object_key());
                assertEquals(0, in.req_hdr.service_context.length);
                assertArrayEquals(state, StateHelper.read(in), "key length " + keyLength);
            }
            final byte[] get = StateRequests.getState(5, key);
            try (RequestInputStream in = jacorb.request(get))
            {
                assertEquals(5, in.req_hdr.request_id);
                assertEquals("get_state", in.req_hdr.operation);
                assertArrayEquals(key, in.req_hdr.target.object_key());
            }
            assertEquals(1, GiopMessage.responseExpected(get, get.length), "two-way");
            assertEquals(5, GiopMessage.requestId(get, get.length));
        }
    }
}
