using System.Diagnostics;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>
/// Autobahn 13.x-like: every combination of <c>client_no_context_takeover</c>, <c>server_no_context_takeover</c>,
/// <c>server_max_window_bits</c> (absent, 8, 15) and <c>client_max_window_bits</c> (absent, 8, 15) offered to our
/// server (default options, threshold 0), and offer lists of three; the exact answer is asserted, then message sizes
/// of 16 B to 64 KiB in the four payload kinds echo as the answer says (a server window below 15 bits: compressed only
/// up to 2^N, without context; the client keeps to its own offered window the same way).
/// </summary>
public sealed class DeflateOfferTests(ITestOutputHelper output)
{
    private static readonly int[] Sizes = [16, 256, 1024, 4096, 64 * 1024];

    public static TheoryData<bool, bool, int?> Offers()
    {
        var rows = new TheoryData<bool, bool, int?>();
        foreach (bool clientNoContext in new[] { false, true })
        {
            foreach (bool serverNoContext in new[] { false, true })
            {
                foreach (int? serverBits in new int?[] { null, 8, 15 })
                {
                    rows.Add(clientNoContext, serverNoContext, serverBits);
                }
            }
        }

        return rows;
    }

    [Theory]
    [MemberData(nameof(Offers))]
    public async Task EachOfferIsAnsweredAsTheRulesSayAndHonoured(bool clientNoContext, bool serverNoContext, int? serverBits)
    {
        await using DeflateEchoHost host = await DeflateEchoHost.StartAsync(new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, Threshold = 0 });
        long start = Stopwatch.GetTimestamp();
        int cases = 0;
        foreach (int? clientBits in new int?[] { null, 8, 15 })
        {
            string offer = "permessage-deflate"
                + (clientNoContext ? "; client_no_context_takeover" : "")
                + (serverNoContext ? "; server_no_context_takeover" : "")
                + (serverBits is { } s ? $"; server_max_window_bits={s}" : "")
                + (clientBits is { } c ? $"; client_max_window_bits={c}" : "");
            // Our answer: server_no_context_takeover when asked or when the server window is below 15 bits (the only
            // way .NET's 15-bit compressor can honour it), client_no_context_takeover when asked, the server window
            // echoed when given; the client's window is not limited by default options.
            string expected = "permessage-deflate"
                + (serverNoContext || serverBits < 15 ? "; server_no_context_takeover" : "")
                + (clientNoContext ? "; client_no_context_takeover" : "")
                + (serverBits is { } b ? $"; server_max_window_bits={b}" : "");
            foreach (int size in Sizes)
            {
                Assert.Equal(expected, await DeflateCase.RunAsync(host.EndPoint, offer, clientBits, null, size, 0, DeflateDataSets.MessagesPerCase));
                cases++;
            }

            output.WriteLine($"{offer} -> {expected}");
        }

        for (int i = 0; i < cases; i++)
        {
            Assert.True((await host.NextEndAsync()).IsClean);
        }

        await host.AssertPoolBalancedAsync();
        output.WriteLine($"13.x: {cases} cases, {cases * DeflateDataSets.MessagesPerCase} messages, {Stopwatch.GetElapsedTime(start).TotalMilliseconds:F0} ms");
    }

    public static TheoryData<string, int, string, int?> Lists() => new()
    {
        // Autobahn 13.7's list: the first offer is accepted (the answer cannot say which of two like it).
        { "permessage-deflate; client_no_context_takeover; client_max_window_bits=8, permessage-deflate; client_no_context_takeover, permessage-deflate", 0, "permessage-deflate; client_no_context_takeover", 8 },
        // The first is invalid (a window of 7 bits): declined; the second is accepted, and its answer names it.
        { "permessage-deflate; server_max_window_bits=7, permessage-deflate; server_max_window_bits=9; client_no_context_takeover, permessage-deflate", 1, "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=9", null },
        // An unknown parameter, then a repeated one: both declined; the third is accepted.
        { "permessage-deflate; x-unknown, permessage-deflate; server_no_context_takeover; server_no_context_takeover, permessage-deflate; server_max_window_bits=12; client_max_window_bits=10", 2, "permessage-deflate; server_no_context_takeover; server_max_window_bits=12", 10 },
        // Another extension first (declined silently), then ours.
        { "x-webkit-deflate-frame, permessage-deflate; client_max_window_bits=15, permessage-deflate", 1, "permessage-deflate", 15 },
    };

    [Theory]
    [MemberData(nameof(Lists))]
    public async Task OfOfferListsTheFirstSupportedIsAccepted(string offers, int accepted, string expected, int? clientBits)
    {
        await using DeflateEchoHost host = await DeflateEchoHost.StartAsync(new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, Threshold = 0 });
        int cases = 0;
        foreach (int size in Sizes)
        {
            Assert.Equal(expected, await DeflateCase.RunAsync(host.EndPoint, offers, clientBits, null, size, 0, DeflateDataSets.MessagesPerCase));
            cases++;
        }

        output.WriteLine($"{offers} -> {expected} (offer {accepted + 1} of 3)");
        for (int i = 0; i < cases; i++)
        {
            Assert.True((await host.NextEndAsync()).IsClean);
        }

        await host.AssertPoolBalancedAsync();
    }
}
