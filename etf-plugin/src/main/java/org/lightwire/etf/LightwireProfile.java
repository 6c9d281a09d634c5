package org.lightwire.etf;

import org.jacorb.orb.CDRInputStream;
import org.jacorb.orb.CDROutputStream;
import org.jacorb.orb.TaggedComponentList;
import org.jacorb.orb.etf.ProfileBase;
import org.omg.ETF.Profile;
import org.omg.GIOP.Version;
import org.omg.GIOP.VersionHelper;

/**
 * The Lightwire tagged profile of an IOR ({@link #TAG}, see {@code docs/protocol.md} section 10):
 * like IIOP's profile body, a CDR encapsulation of the GIOP version, the host (string), the UDP
 * port (unsigned short), the object key and, from GIOP 1.1 on, the tagged components (the
 * listener adds {@code TAG_CODE_SETS}). Two profiles are equal when they name the same endpoint,
 * whatever their object keys, so that JacORB shares one connection among a server's objects.
 */
public final class LightwireProfile extends ProfileBase
{
    /**
     * The profile tag: 0x4C575001 ("LWP" and 1), outside the ranges the OMG has assigned to the
     * ORBs Lightwire meets (0 to 8, TAO's 0x54414Fxx, JacORB's VMCID-based SSL ids).
     */
    public static final int TAG = 0x4C57_5001;

    private LightwireAddress address;

    /** An empty profile, filled by {@code demarshal}. */
    public LightwireProfile()
    {
        this.components = new TaggedComponentList();
    }

    public LightwireProfile(final LightwireAddress address, final byte[] objectKey, final Version version)
    {
        this.address = address;
        this.objectKey = objectKey;
        this.version = version;
        this.components = new TaggedComponentList();
    }

    public LightwireAddress address()
    {
        return address;
    }

    /**
     * @return {@code {vpi, vci}} of the server's AAL5 PVC ({@link Aal5Component}), or null for a
     *     profile of a server on UDP.
     */
    int[] aal5Pvc()
    {
        if (components == null)
        {
            return null;
        }
        for (final org.omg.IOP.TaggedComponent c : components.asArray())
        {
            if (c.tag == Aal5Component.TAG)
            {
                return Aal5Component.decode(c.component_data);
            }
        }
        return null;
    }

    @Override
    public int tag()
    {
        return TAG;
    }

    @Override
    public void writeAddressProfile(final CDROutputStream stream)
    {
        VersionHelper.write(stream, version);
        address.write(stream);
    }

    @Override
    public void readAddressProfile(final CDRInputStream stream)
    {
        version = VersionHelper.read(stream);
        final String host = stream.read_string();
        final int port = stream.read_ushort() & 0xFFFF;
        address = new LightwireAddress(host, port);
    }

    @Override
    public int hash()
    {
        return hashCode();
    }

    @Override
    public boolean is_match(final Profile other)
    {
        return equals(other);
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof LightwireProfile && address != null && address.equals(((LightwireProfile)other).address) &&
            java.util.Arrays.equals(aal5Pvc(), ((LightwireProfile)other).aal5Pvc());
    }

    @Override
    public int hashCode()
    {
        return (address == null ? 0 : address.hashCode()) * 31 + java.util.Arrays.hashCode(aal5Pvc());
    }

    @Override
    public Object clone() throws CloneNotSupportedException
    {
        final LightwireProfile copy = (LightwireProfile)super.clone();
        copy.address = address == null ? null : (LightwireAddress)address.copy();
        copy.objectKey = objectKey == null ? null : objectKey.clone();
        copy.version = version == null ? null : new Version(version.major, version.minor);
        copy.components = components == null ? new TaggedComponentList() : (TaggedComponentList)components.clone();
        return copy;
    }

    /** @return the corbaloc form, {@code corbaloc:lw:1.2@host:port}. */
    @Override
    public String toString()
    {
        return "lw:" + (version == null ? "" : version.major + "." + version.minor + "@") + address;
    }
}
