using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The seed frame streams: the conformance cases of test/WebSocketCodec.Tests (FrameDecoderTests, the session tests)
/// and test/WebSocketCodec.AspNetCore.Tests/Conformance/ConformanceTests.cs (the Autobahn-style cases), each as read by a server
/// (masked frames) and by a client (unmasked).
/// </summary>
public static class FrameSeeds
{
    /// <summary>Invalid UTF-8 texts from the conformance tests (surrogate, overlong, over U+10FFFF, 0xFE, lone
    /// continuation, truncated).</summary>
    public static readonly byte[][] InvalidUtf8 =
    [
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64],
        [0xC0, 0xAF],
        [0xF4, 0x90, 0x80, 0x80],
        [0xFE],
        [0xE0, 0x80, 0xAF],
        [0x80],
        [0xCE, 0xBA, 0xE1],
    ];

    /// <summary>Close codes a peer may send.</summary>
    public static readonly int[] ValidCloseCodes = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999];

    /// <summary>Close codes a peer may not send.</summary>
    public static readonly int[] InvalidCloseCodes = [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535];

    /// <summary>Every seed, for both roles.</summary>
    public static IReadOnlyList<CorpusEntry> All { get; } = Build();

    private static List<CorpusEntry> Build()
    {
        var entries = new List<CorpusEntry>();
        foreach (bool masked in new[] { true, false })
        {
            WebSocketRole role = masked ? WebSocketRole.Server : WebSocketRole.Client;
            string side = masked ? "to-server" : "to-client";
            void Add(string name, params byte[][] frames) => entries.Add(new($"{name}/{side}", WireFrame.Concat(frames), role));
            byte[] F(WebSocketOpcode op, byte[] payload) => WireFrame.Final(op, payload, masked);
            byte[] B(byte first, byte[] payload, int form = -1) => WireFrame.Build(first, payload, masked, form);

            byte[] hello = "Hello"u8.ToArray();
            byte[] kosme = "κόσμε"u8.ToArray();
            byte[] close1000 = F(WebSocketOpcode.Close, WireFrame.ClosePayload(1000));

            // Single frames of every kind.
            Add("text", F(WebSocketOpcode.Text, hello));
            Add("text-empty", F(WebSocketOpcode.Text, []));
            Add("binary", F(WebSocketOpcode.Binary, Bytes(64)));
            Add("binary-empty", F(WebSocketOpcode.Binary, []));
            Add("text-125", F(WebSocketOpcode.Text, Ascii(125)));
            Add("binary-126", F(WebSocketOpcode.Binary, Bytes(126)));
            Add("text-200-16bit", F(WebSocketOpcode.Text, Ascii(200)));
            Add("binary-65535", F(WebSocketOpcode.Binary, Bytes(65535)));
            Add("ping", F(WebSocketOpcode.Ping, hello));
            Add("ping-empty", F(WebSocketOpcode.Ping, []));
            Add("ping-125", F(WebSocketOpcode.Ping, Bytes(125)));
            Add("pong", F(WebSocketOpcode.Pong, hello));
            Add("close-empty", F(WebSocketOpcode.Close, []));
            Add("close-1000", close1000);
            Add("close-reason", F(WebSocketOpcode.Close, WireFrame.ClosePayload(1001, "going away κόσμε")));
            Add("close-reason-123", F(WebSocketOpcode.Close, WireFrame.ClosePayload(1000, new string('r', 123))));

            // Fragmented messages, control frames between fragments.
            Add("fragmented-text", B(0x01, "Hel"u8.ToArray()), B(0x00, "l"u8.ToArray()), B(0x80, "o"u8.ToArray()));
            Add("fragmented-with-ping", B(0x02, Bytes(10)), F(WebSocketOpcode.Ping, hello), B(0x00, Bytes(3)),
                F(WebSocketOpcode.Pong, []), B(0x80, Bytes(7)));
            Add("fragmented-empty-fragments", B(0x01, []), B(0x00, []), B(0x80, []));
            var perByte = new List<byte[]>();
            for (int i = 0; i < kosme.Length; i++)
            {
                perByte.Add(B((byte)((i == kosme.Length - 1 ? 0x80 : 0) | (i == 0 ? 1 : 0)), kosme.AsSpan(i, 1).ToArray()));
            }

            Add("utf8-split-every-byte", [.. perByte]);
            Add("echo-stream", F(WebSocketOpcode.Text, hello), F(WebSocketOpcode.Binary, Bytes(300)), F(WebSocketOpcode.Ping, []),
                F(WebSocketOpcode.Text, kosme), close1000);

            // Invalid frames (each fails with 1002 unless said otherwise).
            Add("ping-126", B(0x89, Bytes(126)));
            Add("ping-fragmented", B(0x09, Bytes(1)));
            Add("pong-fragmented", B(0x0A, Bytes(1)));
            foreach (byte rsv in new byte[] { 0xC1, 0xA1, 0x91, 0xF1 })
            {
                Add($"rsv-{rsv:X2}", F(WebSocketOpcode.Text, hello), B(rsv, Bytes(1)));
            }

            foreach (int opcode in new[] { 3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF })
            {
                Add($"opcode-{opcode:X}", B((byte)(0x80 | opcode), Bytes(1)));
            }

            Add("continuation-alone", B(0x80, Bytes(1)));
            Add("new-message-inside-fragmented", B(0x01, hello), B(0x81, hello));
            Add("non-minimal-16", B(0x82, Bytes(100), form: 1));
            Add("non-minimal-64", B(0x82, Bytes(300), form: 2));
            Add("length-top-bit", [0x82, (byte)((masked ? 0x80 : 0) | 127), 0x80, 0, 0, 0, 0, 0, 0, 1]);
            Add("length-2^40", [0x82, (byte)((masked ? 0x80 : 0) | 127), 0, 0, 1, 0, 0, 0, 0, 0]);
            Add("close-1-byte", B(0x88, [0x03]));
            Add("close-reason-invalid-utf8", F(WebSocketOpcode.Close, [0x03, 0xE8, 0xC0, 0xAF]));
            foreach (int code in ValidCloseCodes)
            {
                Add($"close-{code}", F(WebSocketOpcode.Close, WireFrame.ClosePayload(code)));
            }

            foreach (int code in InvalidCloseCodes)
            {
                Add($"close-invalid-{code}", F(WebSocketOpcode.Close, WireFrame.ClosePayload(code)));
            }

            for (int i = 0; i < InvalidUtf8.Length; i++)
            {
                Add($"invalid-utf8-{i}", F(WebSocketOpcode.Text, InvalidUtf8[i]));
                var fragments = new List<byte[]>();
                byte[] text = InvalidUtf8[i];
                for (int j = 0; j < text.Length; j++)
                {
                    fragments.Add(B((byte)((j == text.Length - 1 ? 0x80 : 0) | (j == 0 ? 1 : 0)), text.AsSpan(j, 1).ToArray()));
                }

                Add($"invalid-utf8-{i}-per-byte", [.. fragments]);
            }

            Add("data-after-close", close1000, F(WebSocketOpcode.Text, hello));
            Add("wrong-mask-bit", WireFrame.Final(WebSocketOpcode.Text, hello, !masked));
        }

        // One frame over 64 KiB (a 64-bit length, gathered in several pooled segments), read by a server.
        entries.Add(new("binary-70000/to-server", WireFrame.Final(WebSocketOpcode.Binary, Bytes(70_000), masked: true), WebSocketRole.Server));
        return entries;
    }

    private static byte[] Bytes(int n)
    {
        byte[] bytes = new byte[n];
        for (int i = 0; i < n; i++)
        {
            bytes[i] = (byte)(i * 7 + 3);
        }

        return bytes;
    }

    private static byte[] Ascii(int n) => Encoding.ASCII.GetBytes(new string('a', n));
}
