package org.lightwire.romiop;

import org.lightwire.etf.giop.CdrWriter;
import org.lightwire.etf.giop.GiopMessage;

/**
 * The two GIOP 1.2 Requests of state transfer, which a replica's {@link RomiopListener} writes
 * itself and queues for its ORB where the group's deliveries go: {@code get_state()} and
 * {@code set_state(in State s)} of {@code LightwireFT::Checkpointable}
 * ({@code idl/LightwireCheckpointable.idl}), two-way, big-endian, on the group object's key, with
 * no service context (octets need no code set, and a request without a {@code CodeSets} context
 * leaves the connection's negotiation to the clients' requests).
 *
 * <pre>
 *  0        12           16               17         20            22    24           28
 * +--------+------------+----------------+----------+-------------+-----+------------+----------
 * | header | request_id | response_flags | reserved | disposition | pad | key length | key ...
 * |        |            | 0x03           | 0 0 0    | 0 (KeyAddr) |     |            |
 * +--------+------------+----------------+----------+-------------+-----+------------+----------
 * then, each ulong aligned to 4: operation (length with its NUL, characters, NUL); service
 * context count 0; set_state only: padding to 8 (a GIOP 1.2 body starts on an 8-octet boundary of
 * the message), the state's length and its octets. get_state has no body, so no padding (JacORB
 * drops the padding of an empty body too).
 * header: "GIOP" 1 2, flags 0 (big-endian, whole), type 0 (Request), body size
 * </pre>
 */
final class StateRequests
{
    static final String GET_STATE = "get_state";
    static final String SET_STATE = "set_state";
    /** SYNC_WITH_TARGET: a two-way call, as JacORB sends one. */
    private static final int RESPONSE_FLAGS = 0x03;
    private static final int KEY_ADDR = 0;

    private StateRequests()
    {
    }

    /** @return the whole {@code get_state()} Request. */
    static byte[] getState(final long requestId, final byte[] objectKey)
    {
        return header(requestId, objectKey, GET_STATE, 0).toMessage();
    }

    /** @return the whole {@code set_state(state)} Request. */
    static byte[] setState(final long requestId, final byte[] objectKey, final byte[] state)
    {
        return header(requestId, objectKey, SET_STATE, state.length).align(8).uLong(state.length).bytes(state).toMessage();
    }

    private static CdrWriter header(final long requestId, final byte[] objectKey, final String operation, final int bodyBytes)
    {
        return new CdrWriter(64 + objectKey.length + operation.length() + bodyBytes).header(2, GiopMessage.REQUEST)
            .uLong((int)requestId)
            .bytes(new byte[] {RESPONSE_FLAGS, 0, 0, 0})
            .bytes(new byte[] {(byte)(KEY_ADDR >>> 8), (byte)KEY_ADDR})
            .uLong(objectKey.length)
            .bytes(objectKey)
            .string(operation)
            .uLong(0);
    }
}
