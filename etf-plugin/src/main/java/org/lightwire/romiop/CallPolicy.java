package org.lightwire.romiop;

import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

import org.lightwire.etf.giop.GiopMessage;
import org.lightwire.etf.giop.ServiceContexts;
import org.lightwire.romiop.consolidation.ConsolidationPolicy;

/**
 * A reply consolidation policy for one call, overriding the group's
 * ({@code jacorb.lightwire.romiop.[group.<g>.]consolidation.*}). It travels in the GIOP Request
 * as service context {@link #SERVICE_CONTEXT_ID}, whose data is a CDR encapsulation of one string,
 * the compact form {@link ConsolidationPolicy#parse} reads, e.g.
 * {@code mode=quorum,quorum=51%,consistency=majority,timeout=500ms}. Any client may add that
 * context itself; a JacORB client registers {@link CallPolicyInitializer} and writes
 *
 * <pre>{@code
 * long n = CallPolicy.with("mode=first_reply", () -> group.append(1, 2));
 * }</pre>
 *
 * The client's ROMIOP plug-in reads the context and consolidates that call's replies by it; a
 * context it cannot read fails the call with {@code BAD_PARAM} (minor 0x4C570105), not sent.
 */
public final class CallPolicy
{
    /** The service context id: Lightwire's vendor prefix 0x4C57 ("LW"), 0x5003 beside the profile tags 0x5001 and 0x5002. */
    public static final int SERVICE_CONTEXT_ID = 0x4C575003;

    private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    private CallPolicy()
    {
    }

    /**
     * Runs {@code call} with {@code spec} as the consolidation policy of the group calls this
     * thread makes in it.
     *
     * @throws IllegalArgumentException naming the bad setting, before any call is made.
     */
    public static <T> T with(final String spec, final Supplier<T> call)
    {
        ConsolidationPolicy.parse(spec);
        final String before = CURRENT.get();
        CURRENT.set(spec);
        try
        {
            return call.get();
        }
        finally
        {
            if (before == null)
            {
                CURRENT.remove();
            }
            else
            {
                CURRENT.set(before);
            }
        }
    }

    /** As {@link #with(String, Supplier)}, for a call without a result (a oneway is not consolidated). */
    public static void with(final String spec, final Runnable call)
    {
        with(spec, () ->
        {
            call.run();
            return null;
        });
    }

    /** @return the policy spec of the current thread's {@link #with}, or null. */
    static String current()
    {
        return CURRENT.get();
    }

    /** @return {@code spec} as the context's data: a big-endian CDR encapsulation of one string. */
    public static byte[] encode(final String spec)
    {
        final byte[] text = spec.getBytes(StandardCharsets.ISO_8859_1);
        final byte[] data = new byte[8 + text.length + 1];
        // Byte 0: big-endian; bytes 1-3: padding; the string's length counts its terminating NUL.
        GiopMessage.writeULong(data, 4, text.length + 1, false);
        System.arraycopy(text, 0, data, 8, text.length);
        return data;
    }

    /** @return the spec in a context's data. @throws IllegalArgumentException when it is no encapsulated string. */
    static String decode(final byte[] data)
    {
        if (data.length < 9 || (data[0] != 0 && data[0] != 1))
        {
            throw new IllegalArgumentException("service context 0x" + Integer.toHexString(SERVICE_CONTEXT_ID) +
                " is not a CDR encapsulation of a string (" + data.length + " bytes)");
        }
        final long length = GiopMessage.readULong(data, 4, data[0] == 1) & 0xFFFF_FFFFL;
        // Padding after the string is allowed (ServiceContexts.insert pads to 8 bytes).
        if (length < 1 || 8 + length > data.length || data[8 + (int)length - 1] != 0)
        {
            throw new IllegalArgumentException("service context 0x" + Integer.toHexString(SERVICE_CONTEXT_ID) +
                ": string length " + length + " does not fit its " + data.length + "-byte encapsulation");
        }
        return new String(data, 8, (int)length - 1, StandardCharsets.ISO_8859_1);
    }

    /**
     * @return the policy a GIOP Request carries in context {@link #SERVICE_CONTEXT_ID}, or null
     *     when it carries none.
     * @throws IllegalArgumentException naming what is wrong with the context or the policy.
     */
    static ConsolidationPolicy fromRequest(final byte[] message, final int length)
    {
        final byte[] data = ServiceContexts.find(message, length, SERVICE_CONTEXT_ID);
        return data == null ? null : ConsolidationPolicy.parse(decode(data));
    }
}
