package org.lightwire.atm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Properties;

import org.junit.jupiter.api.Test;

class Aal5ConfigTest
{
    static final String P = "jacorb.lightwire.aal5.";

    static Properties props(final String... keyValues)
    {
        final Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2)
        {
            p.setProperty(P + keyValues[i], keyValues[i + 1]);
        }
        return p;
    }

    static String error(final String... keyValues)
    {
        return assertThrows(IllegalArgumentException.class, () -> Aal5Config.fromProperties(props(keyValues), P)).getMessage();
    }

    @Test
    void defaultsAreUbrAtLineRateWithEightKibSdus()
    {
        final Aal5Config c = Aal5Config.fromProperties(props("circuit", "0.0.100"), P);
        assertEquals(new PvcAddress(0, 0, 100), c.pvc());
        assertNull(c.svcAddress());
        assertEquals(AtmQos.DEFAULT, c.txQos());
        assertEquals(AtmQos.DEFAULT, c.rxQos());
        assertEquals(8192, c.maxPacketBytes());
        assertEquals("Aal5Config{pvc 0.0.100, tx=ubr,pcr=line,max_sdu=8192, rx=ubr,pcr=line,max_sdu=8192}", c.toString());
    }

    @Test
    void directionsOverrideTheSharedQos()
    {
        final Aal5Config c = Aal5Config.fromProperties(props("circuit", "1.0.100", "qos.class", "CBR", "qos.pcr", "100000",
            "qos.max_sdu", "65535", "qos.rx.max_sdu", "16384"), P);
        assertEquals(new AtmQos(TrafficClass.CBR, 100_000, 65535), c.txQos());
        assertEquals(new AtmQos(TrafficClass.CBR, 100_000, 16384), c.rxQos());
        assertEquals(16384, c.maxPacketBytes());
    }

    @Test
    void badValuesNameThePropertyAndTheRange()
    {
        assertEquals(P + "qos.class=abr is not a traffic class: use ubr or cbr", error("circuit", "0.0.100", "qos.class", "abr"));
        assertEquals(P + "qos.pcr=0 with " + P + "qos.class=cbr: CBR reserves a peak cell rate, so give one in cells per" +
            " second (1 to the link rate, 353207 on OC-3)", error("circuit", "0.0.100", "qos.class", "cbr"));
        assertEquals(P + "qos.tx.max_sdu=65536 is outside 9..65535 bytes (AAL5 carries at most 65535)",
            error("circuit", "0.0.100", "qos.tx.max_sdu", "65536"));
        assertEquals(P + "qos.pcr=fast is not a whole number", error("circuit", "0.0.100", "qos.pcr", "fast"));
        assertEquals(P + "circuit: PVC '0.100' is not itf.vpi.vci (for example 0.0.100)", error("circuit", "0.100"));
        assertEquals(P + "circuit: PVC VCI 5 is outside 32..65535 (VCIs below 32 are reserved for signalling and OAM)",
            error("circuit", "0.0.5"));
        assertEquals(P + ": no circuit: give a PVC (circuit=itf.vpi.vci) or an SVC address (address)", error());
        assertEquals(P + ": both a PVC (0.0.100) and an SVC address (47.0005) given: choose one",
            error("circuit", "0.0.100", "address", "47.0005"));
        assertEquals(P + ": qos.tx.class=UBR and qos.rx.class=CBR differ: Linux ATM needs one traffic class for both" +
            " directions of a circuit", error("circuit", "0.0.100", "qos.rx.class", "cbr", "qos.rx.pcr", "1000"));
    }
}
