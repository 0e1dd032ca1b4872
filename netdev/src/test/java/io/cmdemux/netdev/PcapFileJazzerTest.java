package io.cmdemux.netdev;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Jazzer fuzz target for PcapReader: a pcap or pcapng file of any content reads as records until a
 * clean end or a MalformedException inside the file, in bounded memory whatever its length fields
 * claim. The oracle is the jqwik fuzzing's ({@link PcapReaderFuzzTest#readAll}), which measures the
 * reader's allocation itself; the committed inputs are in PcapFileJazzerTestInputs/ (see its README).
 */
class PcapFileJazzerTest {

    @FuzzTest
    void anyFileReadsAsRecordsThenEndsOrIsMalformed(byte[] file) {
        PcapReaderFuzzTest.readAll(file);
    }
}
