package org.lightwire.etf.giop;

import java.nio.ByteBuffer;

/**
 * Decides whether a message a client sent may be handed to JacORB on a server connection that
 * other clients share (a lane), and reads what the lane needs of it: the request id, where it
 * is, the response flags and the code-set service context. JacORB closes a server connection on
 * any message it cannot read (bad magic, a {@code MARSHAL} while it reads a request header, an
 * out-of-bounds object key; {@code GIOPConnection.receiveMessagesLoop} catches every exception
 * with {@code streamClosed()}), which would fail every client of the lane; so this reads each
 * field JacORB reads on its reader thread, with the same rules, before JacORB sees the message:
 *
 * <ul>
 *   <li>the GIOP header ({@link GiopMessage}): magic, version 1.0 to 1.2 (a 1.0 flags octet is
 *       the byte-order boolean, 0 or 1), no "more fragments" bit, a size equal to the message's;</li>
 *   <li>the type: Request or LocateRequest are presented; CancelRequest, MessageError and
 *       CloseConnection are the client's control messages, which the lane answers itself;
 *       anything else (Reply, LocateReply, Fragment, unknown) is refused;</li>
 *   <li>the request header (CORBA 3.0, 15.4.2 and 15.4.5), each field in the message's byte order
 *       and CDR alignment: GIOP 1.0/1.1 service contexts, request id, response_expected (a strict
 *       boolean), 1.1's reserved octets, object key, operation (a string of at least its NUL, which
 *       ends it), principal; GIOP 1.2 request id, response_flags (0, 1 or 3, the only values JacORB
 *       tells apart), reserved octets, target address, operation, service contexts. Only KeyAddr
 *       targets are accepted: ProfileAddr and ReferenceAddr make JacORB demarshal a client's
 *       profile or IOR on the shared reader thread;</li>
 *   <li>the two service contexts JacORB decodes on its reader thread: {@code CodeSets} (id 1;
 *       {@code ServerRequestListener.requestReceived}, the last one wins) and
 *       {@code INVOCATION_POLICIES} (id 7, the first; {@code ServerRequest.calcTimingPolicies},
 *       including the {@code UtcT} of the request start, request end and reply end policies);</li>
 *   <li>the object key: {@code POAUtil.extractOID} (in {@code ServerRequest}'s constructor) reads
 *       past the key, an exception JacORB does not catch, when the key's part after its last
 *       unmasked '/' ends in an unpaired POA mask byte '&amp;'.</li>
 * </ul>
 *
 * <p>Every sequence and string length is checked against the bytes that are there, so no count
 * makes JacORB allocate more than the message holds. Works in place on a heap or direct buffer
 * with absolute reads (neither position nor limit moves), allocates nothing, never throws for
 * what a client sent. Not thread-safe: one instance per reading thread.
 */
public final class GiopRequestCheck
{
    /** What becomes of a message. */
    public enum Verdict
    {
        /** A Request or LocateRequest JacORB reads without failing its connection. */
        PRESENT(false, null),
        /** A CancelRequest: JacORB's server ignores it ("nothing to do"); answered empty. */
        CANCEL_REQUEST(false, null),
        /** A MessageError from the client: answered empty. */
        CLIENT_MESSAGE_ERROR(false, null),
        /** A CloseConnection from the client (a server's message): answered empty. */
        CLIENT_CLOSE_CONNECTION(false, null),
        NOT_GIOP(true, "not a GIOP message (no GIOP magic, or shorter than the 12-byte GIOP header)"),
        UNSUPPORTED_VERSION(true, "a GIOP version other than 1.0, 1.1 and 1.2"),
        SIZE_MISMATCH(true, "the GIOP header announces another size than the message has"),
        FRAGMENTED(true, "a GIOP fragment (Lightwire carries whole messages; the client joins fragments)"),
        UNEXPECTED_TYPE(true, "a GIOP message type that a client does not send (Reply, LocateReply or unknown)"),
        MALFORMED_HEADER(true, "a request header that cannot be read"),
        UNSUPPORTED_TARGET(true, "a GIOP 1.2 target address other than KeyAddr (the object key)"),
        MALFORMED_SERVICE_CONTEXT(true, "a CodeSets or INVOCATION_POLICIES service context that cannot be read"),
        UNUSABLE_OBJECT_KEY(true, "an object key that ends in an unpaired POA mask byte '&'");

        private final boolean malformed;
        private final String description;

        Verdict(final boolean malformed, final String description)
        {
            this.malformed = malformed;
            this.description = description;
        }

        /** @return true for a message that is refused as malformed (not a control message, not presented). */
        public boolean malformed()
        {
            return malformed;
        }

        /** @return what was wrong, for the detail message of the refusal; null for what is not malformed. */
        public String description()
        {
            return description;
        }
    }

    /** {@code IOP::CodeSets}. */
    public static final int CODE_SETS = 1;
    /** {@code IOP::INVOCATION_POLICIES}. */
    public static final int INVOCATION_POLICIES = 7;
    /** {@code Messaging::REQUEST_START_TIME_POLICY_TYPE}; 28 and 30 are the request end and reply end times. */
    private static final int REQUEST_START_TIME_POLICY_TYPE = 27;
    private static final int REQUEST_END_TIME_POLICY_TYPE = 28;
    private static final int REPLY_END_TIME_POLICY_TYPE = 30;
    /** A CodeSetContext encapsulation: byte order, padding, char and wchar code set ids. */
    private static final int CODE_SET_CONTEXT_BYTES = 12;
    /** A UtcT encapsulation: byte order, padding to 8, time (8), inacclo (4), inacchi (2), tdf (2). */
    private static final int UTC_T_BYTES = 24;
    private static final byte SEPARATOR = '/';
    private static final byte MASK = '&';
    private static final int KEY_ADDR = 0;

    // Facts of the message checked last.
    private int type;
    private int minor;
    private boolean little;
    private int requestIdOffset;
    private long requestId;
    private boolean responseExpected;
    private boolean codeSetContext;
    private int charCodeSet;
    private int wcharCodeSet;

    // The cursor over the message: absolute indices; CDR alignment is relative to base.
    private ByteBuffer m;
    private int base;
    private int end;
    private int pos;
    private boolean failed;
    private int seqStart;
    private int seqLength;
    private boolean policiesSeen;

    /**
     * Checks the message from {@code message}'s position to its limit.
     *
     * @return the verdict; the accessors then describe the message.
     */
    public Verdict check(final ByteBuffer message)
    {
        m = message;
        base = message.position();
        end = message.limit();
        type = -1;
        minor = -1;
        little = false;
        requestIdOffset = -1;
        requestId = GiopMessage.UNKNOWN;
        responseExpected = false;
        codeSetContext = false;
        charCodeSet = 0;
        wcharCodeSet = 0;
        failed = false;
        policiesSeen = false;
        final int length = end - base;
        if (length < GiopMessage.HEADER_LENGTH || m.get(base) != 'G' || m.get(base + 1) != 'I' || m.get(base + 2) != 'O' ||
            m.get(base + 3) != 'P')
        {
            return Verdict.NOT_GIOP;
        }
        if (m.get(base + 4) != 1 || m.get(base + 5) < 0 || m.get(base + 5) > 2)
        {
            return Verdict.UNSUPPORTED_VERSION;
        }
        minor = m.get(base + 5);
        final int flags = m.get(base + 6) & 0xFF;
        little = (flags & 0x01) != 0;
        type = m.get(base + 7) & 0xFF;
        if (minor == 0 && flags > 1)
        {
            // GIOP 1.0 has the byte-order boolean here; JacORB would read bit 1 as "more fragments".
            return Verdict.MALFORMED_HEADER;
        }
        if ((GiopMessage.readULong(m, base + 8, little) & 0xFFFF_FFFFL) != length - GiopMessage.HEADER_LENGTH)
        {
            return Verdict.SIZE_MISMATCH;
        }
        // Read before the fragment test, so that a refused fragment can be answered by its id.
        readRequestIdIfAny();
        if ((flags & 0x02) != 0 || type == GiopMessage.FRAGMENT)
        {
            return Verdict.FRAGMENTED;
        }
        switch (type)
        {
            case GiopMessage.REQUEST:
                return minor == 2 ? request12() : request10();
            case GiopMessage.LOCATE_REQUEST:
                return locateRequest();
            case GiopMessage.CANCEL_REQUEST:
                return Verdict.CANCEL_REQUEST;
            case GiopMessage.MESSAGE_ERROR:
                return Verdict.CLIENT_MESSAGE_ERROR;
            case GiopMessage.CLOSE_CONNECTION:
                return Verdict.CLIENT_CLOSE_CONNECTION;
            default:
                return Verdict.UNEXPECTED_TYPE;
        }
    }

    /**
     * Where a request id is at a fixed offset (1.2 Request and Fragment, LocateRequest), reads it,
     * and whether a reply is expected, so that a refused message can be answered by its id.
     */
    private void readRequestIdIfAny()
    {
        if ((type == GiopMessage.LOCATE_REQUEST || type == GiopMessage.REQUEST && minor == 2 ||
            type == GiopMessage.FRAGMENT && minor == 2) && base + GiopMessage.HEADER_LENGTH + 4 <= end)
        {
            setRequestId(base + GiopMessage.HEADER_LENGTH);
            responseExpected = type == GiopMessage.LOCATE_REQUEST;
            if (type == GiopMessage.REQUEST && base + GiopMessage.HEADER_LENGTH + 4 < end)
            {
                final int flags = m.get(base + GiopMessage.HEADER_LENGTH + 4);
                responseExpected = flags == 1 || flags == 3;
            }
        }
    }

    private void setRequestId(final int index)
    {
        requestIdOffset = index - base;
        requestId = GiopMessage.readULong(m, index, little) & 0xFFFF_FFFFL;
    }

    /** GIOP 1.2 Request header: request_id, response_flags, reserved[3], target, operation, service contexts. */
    private Verdict request12()
    {
        pos = base + GiopMessage.HEADER_LENGTH;
        ulong();
        final int responseFlags = octet();
        pos += 3;
        if (failed || pos > end || responseFlags != 0 && responseFlags != 1 && responseFlags != 3)
        {
            return Verdict.MALFORMED_HEADER;
        }
        responseExpected = responseFlags != 0;
        final Verdict target = keyAddress();
        if (target != null)
        {
            return target;
        }
        string();
        return serviceContexts();
    }

    /** GIOP 1.0 and 1.1 Request header: service contexts, request_id, response_expected, (1.1) reserved[3], object key, operation, principal. */
    private Verdict request10()
    {
        pos = base + GiopMessage.HEADER_LENGTH;
        final Verdict contexts = serviceContexts();
        if (contexts != Verdict.PRESENT)
        {
            return contexts;
        }
        align(4);
        final int idIndex = pos;
        ulong();
        final int expected = octet();
        if (failed || expected > 1)
        {
            return Verdict.MALFORMED_HEADER;
        }
        setRequestId(idIndex);
        responseExpected = expected == 1;
        if (minor == 1)
        {
            pos += 3;
        }
        if (!objectKey())
        {
            return failed ? Verdict.MALFORMED_HEADER : Verdict.UNUSABLE_OBJECT_KEY;
        }
        string();
        octetSeq();
        return failed ? Verdict.MALFORMED_HEADER : Verdict.PRESENT;
    }

    /** LocateRequest header: request_id, then the object key (1.0, 1.1) or target address (1.2). */
    private Verdict locateRequest()
    {
        pos = base + GiopMessage.HEADER_LENGTH;
        ulong();
        if (failed)
        {
            return Verdict.MALFORMED_HEADER;
        }
        responseExpected = true;
        if (minor == 2)
        {
            final Verdict target = keyAddress();
            return target != null ? target : Verdict.PRESENT;
        }
        if (!objectKey())
        {
            return failed ? Verdict.MALFORMED_HEADER : Verdict.UNUSABLE_OBJECT_KEY;
        }
        return Verdict.PRESENT;
    }

    /** @return null when a KeyAddr target with a usable key was read, else the verdict. */
    private Verdict keyAddress()
    {
        final int disposition = ushort();
        if (failed)
        {
            return Verdict.MALFORMED_HEADER;
        }
        if (disposition != KEY_ADDR)
        {
            return Verdict.UNSUPPORTED_TARGET;
        }
        if (!objectKey())
        {
            return failed ? Verdict.MALFORMED_HEADER : Verdict.UNUSABLE_OBJECT_KEY;
        }
        return null;
    }

    /**
     * Reads the object key (an octet sequence) and applies {@code POAUtil.extractOID}'s reading:
     * after the last '/' that no '&amp;' masks, each '&amp;' takes the next byte with it.
     *
     * @return false when the key cannot be read ({@link #failed}) or JacORB would read past it.
     */
    private boolean objectKey()
    {
        octetSeq();
        if (failed)
        {
            return false;
        }
        final int start = seqStart;
        final int keyEnd = seqStart + seqLength;
        int separator = -1;
        for (int i = keyEnd - 1; i >= start; i--)
        {
            if (m.get(i) == SEPARATOR && (i == start || m.get(i - 1) != MASK))
            {
                separator = i;
                break;
            }
        }
        if (separator < 0)
        {
            // No separator: JacORB's POA refuses the key itself (OBJECT_NOT_EXIST), harmlessly.
            return true;
        }
        for (int i = separator + 1; i < keyEnd; i++)
        {
            if (m.get(i) == MASK)
            {
                if (i + 1 >= keyEnd)
                {
                    return false;
                }
                i++;
            }
        }
        return true;
    }

    /** A ServiceContextList: count, then each context's id and data; the two JacORB decodes are checked. */
    private Verdict serviceContexts()
    {
        final long count = ulong() & 0xFFFF_FFFFL;
        // Each context takes at least 8 bytes: a count beyond that cannot be real.
        if (failed || count > (end - pos) / 8)
        {
            return Verdict.MALFORMED_HEADER;
        }
        for (long i = 0; i < count; i++)
        {
            final int id = ulong();
            octetSeq();
            if (failed)
            {
                return Verdict.MALFORMED_HEADER;
            }
            if (id == CODE_SETS && !codeSetContext(seqStart, seqLength))
            {
                return Verdict.MALFORMED_SERVICE_CONTEXT;
            }
            if (id == INVOCATION_POLICIES && !policiesSeen)
            {
                policiesSeen = true;
                if (!invocationPolicies(seqStart, seqLength))
                {
                    return Verdict.MALFORMED_SERVICE_CONTEXT;
                }
            }
        }
        return failed ? Verdict.MALFORMED_HEADER : Verdict.PRESENT;
    }

    /** {@code CONV_FRAME::CodeSetContext} in an encapsulation; the last one read is the one JacORB uses. */
    private boolean codeSetContext(final int start, final int length)
    {
        if (length < CODE_SET_CONTEXT_BYTES || (m.get(start) & 0xFF) > 1)
        {
            return false;
        }
        final boolean encapsulationLittle = m.get(start) == 1;
        codeSetContext = true;
        charCodeSet = GiopMessage.readULong(m, start + 4, encapsulationLittle);
        wcharCodeSet = GiopMessage.readULong(m, start + 8, encapsulationLittle);
        return true;
    }

    /** {@code CORBA::PolicyValueSeq} in an encapsulation; each time policy's value is a {@code UtcT} encapsulation. */
    private boolean invocationPolicies(final int start, final int length)
    {
        if (length < 8 || (m.get(start) & 0xFF) > 1)
        {
            return false;
        }
        final boolean encapsulationLittle = m.get(start) == 1;
        int p = 4;
        final long count = GiopMessage.readULong(m, start + p, encapsulationLittle) & 0xFFFF_FFFFL;
        p += 4;
        if (count > (length - p) / 8)
        {
            return false;
        }
        for (long i = 0; i < count; i++)
        {
            p = GiopMessage.align(p, 4);
            if (p + 8 > length)
            {
                return false;
            }
            final int policyType = GiopMessage.readULong(m, start + p, encapsulationLittle);
            final long valueLength = GiopMessage.readULong(m, start + p + 4, encapsulationLittle) & 0xFFFF_FFFFL;
            p += 8;
            if (valueLength > length - p)
            {
                return false;
            }
            if ((policyType == REQUEST_START_TIME_POLICY_TYPE || policyType == REQUEST_END_TIME_POLICY_TYPE ||
                policyType == REPLY_END_TIME_POLICY_TYPE) && (valueLength < UTC_T_BYTES || (m.get(start + p) & 0xFF) > 1))
            {
                return false;
            }
            p += (int)valueLength;
        }
        return true;
    }

    private void align(final int boundary)
    {
        pos = base + GiopMessage.align(pos - base, boundary);
    }

    private int octet()
    {
        if (failed || pos + 1 > end)
        {
            failed = true;
            return -1;
        }
        return m.get(pos++) & 0xFF;
    }

    private int ushort()
    {
        align(2);
        if (failed || pos + 2 > end)
        {
            failed = true;
            return -1;
        }
        final int b0 = m.get(pos) & 0xFF;
        final int b1 = m.get(pos + 1) & 0xFF;
        pos += 2;
        return little ? b0 | b1 << 8 : b0 << 8 | b1;
    }

    private int ulong()
    {
        align(4);
        if (failed || pos + 4 > end)
        {
            failed = true;
            return 0;
        }
        final int value = GiopMessage.readULong(m, pos, little);
        pos += 4;
        return value;
    }

    /** A sequence of octets: its data is at {@link #seqStart}, {@link #seqLength} bytes. */
    private void octetSeq()
    {
        final long n = ulong() & 0xFFFF_FFFFL;
        if (failed || n > end - pos)
        {
            failed = true;
            return;
        }
        seqStart = pos;
        seqLength = (int)n;
        pos += (int)n;
    }

    /** A string: its length counts the NUL that ends it, so it is at least 1. */
    private void string()
    {
        final long n = ulong() & 0xFFFF_FFFFL;
        if (failed || n < 1 || n > end - pos || m.get(pos + (int)n - 1) != 0)
        {
            failed = true;
            return;
        }
        pos += (int)n;
    }

    /** @return the GIOP message type, or -1 when the message is no GIOP 1.x message. */
    public int type()
    {
        return type;
    }

    /** @return the GIOP minor version, or -1 when the message is no GIOP 1.x message. */
    public int minor()
    {
        return minor;
    }

    /** @return true when the message is little-endian. */
    public boolean littleEndian()
    {
        return little;
    }

    /** @return where the request id is, from the message's start; -1 when it could not be read. */
    public int requestIdOffset()
    {
        return requestIdOffset;
    }

    /** @return the request id (an unsigned long), or {@link GiopMessage#UNKNOWN}. */
    public long requestId()
    {
        return requestId;
    }

    /** @return true for a Request whose response flags ask for a reply (1 or 3), and for a LocateRequest. */
    public boolean responseExpected()
    {
        return responseExpected;
    }

    /** @return true when the request carries a CodeSets service context ({@link #charCodeSet()}, {@link #wcharCodeSet()}). */
    public boolean hasCodeSetContext()
    {
        return codeSetContext;
    }

    /** @return the transmission code set for char data the CodeSets context names (the last one, as JacORB reads it). */
    public int charCodeSet()
    {
        return charCodeSet;
    }

    /** @return the transmission code set for wchar data the CodeSets context names. */
    public int wcharCodeSet()
    {
        return wcharCodeSet;
    }
}
