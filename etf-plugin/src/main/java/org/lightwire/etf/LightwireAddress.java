package org.lightwire.etf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import org.jacorb.orb.CDROutputStream;
import org.jacorb.orb.etf.ProtocolAddressBase;

/**
 * A Lightwire server's address: a host (name or literal address) and a UDP port. On the wire
 * (inside the profile) it is a CDR string and an unsigned short, as IIOP writes its address. Its
 * string form is {@code host:port}; {@code [v6]:port} for an IPv6 literal.
 */
public final class LightwireAddress extends ProtocolAddressBase
{
    private String host;
    private int port;

    public LightwireAddress()
    {
        this("", 0);
    }

    public LightwireAddress(final String host, final int port)
    {
        this.host = host;
        this.port = port;
    }

    /**
     * Host part of the address of a server on an AAL5 circuit: {@code aal5-pvc-} and the server's
     * PVC ({@code itf.vpi.vci}), port 0. It names the server's end of the circuit for people and
     * logs; a client reaches it over its own end, {@code jacorb.lightwire.aal5.circuit}. A UDP
     * client cannot resolve it and moves on to the next profile.
     */
    public static final String AAL5_HOST_PREFIX = "aal5-pvc-";

    /** @return the address of a server on AAL5 PVC {@code circuit}. */
    public static LightwireAddress aal5(final String circuit)
    {
        return new LightwireAddress(AAL5_HOST_PREFIX + circuit, 0);
    }

    /** @return true for the address of a server on an AAL5 circuit. */
    public boolean isAal5()
    {
        return host != null && host.startsWith(AAL5_HOST_PREFIX);
    }

    public String host()
    {
        return host;
    }

    public int port()
    {
        return port;
    }

    /**
     * @return the socket address to send to, resolved now.
     * @throws UnknownHostException when the host name does not resolve.
     */
    public InetSocketAddress resolve() throws UnknownHostException
    {
        return new InetSocketAddress(InetAddress.getByName(host), port);
    }

    @Override
    public String toString()
    {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** Parses {@code host:port} or {@code [v6]:port}; false when it is not of that form. */
    @Override
    public boolean fromString(final String s)
    {
        final int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1)
        {
            return false;
        }
        String h = s.substring(0, colon);
        if (h.startsWith("[") && h.endsWith("]"))
        {
            h = h.substring(1, h.length() - 1);
        }
        final int p;
        try
        {
            p = Integer.parseInt(s.substring(colon + 1));
        }
        catch (final NumberFormatException e)
        {
            return false;
        }
        if (p < 1 || p > 65535 || h.isEmpty())
        {
            return false;
        }
        host = h;
        port = p;
        return true;
    }

    @Override
    public void write(final CDROutputStream s)
    {
        s.write_string(host);
        s.write_ushort((short)port);
    }

    @Override
    public ProtocolAddressBase copy()
    {
        final LightwireAddress copy = new LightwireAddress(host, port);
        copy.configuration = configuration;
        return copy;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof LightwireAddress && ((LightwireAddress)other).port == port && ((LightwireAddress)other).host.equals(host);
    }

    @Override
    public int hashCode()
    {
        return host.hashCode() * 31 + port;
    }
}
