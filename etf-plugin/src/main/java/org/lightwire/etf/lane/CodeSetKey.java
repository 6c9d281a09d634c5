package org.lightwire.etf.lane;

import org.lightwire.etf.giop.GiopRequestCheck;

/**
 * The code sets a JacORB server connection decodes requests with, as its requests settled them
 * ({@code ServerRequestListener.requestReceived}): JacORB negotiates once per connection, from
 * the first request that carries a CodeSets service context, and a GIOP 1.0 request settles it on
 * the server's native code sets. A lane is one JacORB connection shared by many transport
 * connections, so it may carry only transport connections whose requests settle it the same way:
 *
 * <ul>
 *   <li>{@link #NO_CONTEXT}: GIOP 1.1/1.2 requests without the context; the connection stays
 *       unnegotiated and decodes with the server's native code sets;</li>
 *   <li>{@link #GIOP_1_0}: a GIOP 1.0 request came first; negotiated, on the native code sets;</li>
 *   <li>a context's char and wchar transmission code sets ({@link #of}), compared by value, not by
 *       the bytes of the encapsulation (a Lightwire client pads the copies it inserts).</li>
 * </ul>
 *
 * <p>A transport connection's key follows the same rule JacORB applies to its connection: unset
 * before its first request; {@link #NO_CONTEXT} may still become {@link #GIOP_1_0} or a context
 * key; the other two are final ({@link #after}).
 */
public final class CodeSetKey
{
    private enum Kind
    {
        NO_CONTEXT, GIOP_1_0, CONTEXT
    }

    public static final CodeSetKey NO_CONTEXT = new CodeSetKey(Kind.NO_CONTEXT, 0, 0);
    public static final CodeSetKey GIOP_1_0 = new CodeSetKey(Kind.GIOP_1_0, 0, 0);

    private final Kind kind;
    private final int charCodeSet;
    private final int wcharCodeSet;

    private CodeSetKey(final Kind kind, final int charCodeSet, final int wcharCodeSet)
    {
        this.kind = kind;
        this.charCodeSet = charCodeSet;
        this.wcharCodeSet = wcharCodeSet;
    }

    /** @return the key of a CodeSets context naming these transmission code sets. */
    public static CodeSetKey of(final int charCodeSet, final int wcharCodeSet)
    {
        return new CodeSetKey(Kind.CONTEXT, charCodeSet, wcharCodeSet);
    }

    /**
     * @param current the transport connection's key so far, null before its first request.
     * @param request a request that passed the check (verdict PRESENT).
     * @return the connection's key once JacORB has read this request: {@code current} itself
     *     whenever the request changes nothing (no allocation on that path).
     */
    public static CodeSetKey after(final CodeSetKey current, final GiopRequestCheck request)
    {
        if (current != null && current != NO_CONTEXT)
        {
            return current;
        }
        if (request.minor() == 0)
        {
            return GIOP_1_0;
        }
        if (request.hasCodeSetContext())
        {
            return of(request.charCodeSet(), request.wcharCodeSet());
        }
        return NO_CONTEXT;
    }

    @Override
    public boolean equals(final Object o)
    {
        if (this == o)
        {
            return true;
        }
        if (!(o instanceof CodeSetKey))
        {
            return false;
        }
        final CodeSetKey k = (CodeSetKey)o;
        return kind == k.kind && charCodeSet == k.charCodeSet && wcharCodeSet == k.wcharCodeSet;
    }

    @Override
    public int hashCode()
    {
        return (kind.ordinal() * 31 + charCodeSet) * 31 + wcharCodeSet;
    }

    /** @return "no context", "GIOP 1.0" or "char 0x05010001 wchar 0x00010109". */
    @Override
    public String toString()
    {
        switch (kind)
        {
            case NO_CONTEXT:
                return "no context";
            case GIOP_1_0:
                return "GIOP 1.0";
            default:
                return String.format("char 0x%08x wchar 0x%08x", charCodeSet, wcharCodeSet);
        }
    }
}
