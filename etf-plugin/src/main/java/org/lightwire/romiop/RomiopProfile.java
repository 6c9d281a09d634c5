package org.lightwire.romiop;

import org.jacorb.orb.CDRInputStream;
import org.lightwire.etf.AddressedProfile;
import org.omg.GIOP.Version;

/**
 * The ROMIOP group profile of an IOR ({@link #TAG}): a CDR encapsulation of the GIOP version,
 * the group's {@link RomiopAddress} (name, multicast address, members), the object key every
 * replica serves, and from GIOP 1.1 on the tagged components (the listener adds
 * {@code TAG_CODE_SETS}). Two profiles are equal when they name the same group, whatever their
 * keys, so one ORB shares one group connection among all the group's objects.
 */
public final class RomiopProfile extends AddressedProfile<RomiopAddress>
{
    /**
     * The profile tag: 0x4C575002 ("LWP" and 2), next to Lightwire's point-to-point 0x4C575001,
     * outside the OMG-assigned ranges (MIOP's TAG_UIPMC is 3).
     */
    public static final int TAG = 0x4C57_5002;

    /** An empty profile, filled by {@code demarshal}. */
    public RomiopProfile()
    {
    }

    public RomiopProfile(final RomiopAddress address, final byte[] objectKey, final Version version)
    {
        super(address, objectKey, version);
    }

    @Override
    public int tag()
    {
        return TAG;
    }

    @Override
    protected RomiopAddress readAddress(final CDRInputStream stream)
    {
        return RomiopAddress.read(stream);
    }

    /** {@code corbaloc:romiop:1.2@group@239.255.0.1:5000+1+2+3}. */
    @Override
    protected String corbalocProtocol()
    {
        return "romiop";
    }
}
