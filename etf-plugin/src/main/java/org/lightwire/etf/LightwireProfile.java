package org.lightwire.etf;

import org.jacorb.orb.CDRInputStream;
import org.omg.GIOP.Version;

/**
 * The Lightwire tagged profile of an IOR ({@link #TAG}, see {@code docs/protocol.md} section 10):
 * like IIOP's profile body, a CDR encapsulation of the GIOP version, the host (string), the UDP
 * port (unsigned short), the object key and, from GIOP 1.1 on, the tagged components (the
 * listener adds {@code TAG_CODE_SETS}). Two profiles are equal when they name the same endpoint,
 * whatever their object keys, so that JacORB shares one connection among a server's objects.
 */
public final class LightwireProfile extends AddressedProfile<LightwireAddress>
{
    /**
     * The profile tag: 0x4C575001 ("LWP" and 1), outside the ranges the OMG has assigned to the
     * ORBs Lightwire meets (0 to 8, TAO's 0x54414Fxx, JacORB's VMCID-based SSL ids).
     */
    public static final int TAG = 0x4C57_5001;

    /** An empty profile, filled by {@code demarshal}. */
    public LightwireProfile()
    {
    }

    public LightwireProfile(final LightwireAddress address, final byte[] objectKey, final Version version)
    {
        super(address, objectKey, version);
    }

    @Override
    public int tag()
    {
        return TAG;
    }

    @Override
    protected LightwireAddress readAddress(final CDRInputStream stream)
    {
        final String host = stream.read_string();
        final int port = stream.read_ushort() & 0xFFFF;
        return new LightwireAddress(host, port);
    }

    /** {@code corbaloc:lw:1.2@host:port}. */
    @Override
    protected String corbalocProtocol()
    {
        return "lw";
    }
}
