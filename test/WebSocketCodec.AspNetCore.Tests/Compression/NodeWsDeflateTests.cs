using System.Text.Json;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>
/// node's <c>ws</c> (an independent permessage-deflate implementation on zlib) as the client of our Kestrel endpoint:
/// each row is one <c>perMessageDeflate</c> setting of ws against one server setting; it checks the exact offer ws
/// sent, the exact answer our server gave, what ws settled, and then, message by message, that ws compressed what it
/// sent (threshold 0: every message, the empty one too) and that our echo came back compressed exactly when our server
/// may compress it (from its threshold of 32 bytes up, and with a server window below 15 bits only up to 2^N bytes),
/// byte for byte, from 0 bytes to 1 MiB, then 200 messages back to back in order.
/// </summary>
public sealed class NodeWsDeflateTests(NodeFixture node, ITestOutputHelper output) : IClassFixture<NodeFixture>
{
    private const string Sizes = "0,1,31,32,200,256,257,1024,1025,5000,65536,1048576";

    public static TheoryData<string, string, string, string?, int> Rows() => new()
    {
        // ws's perMessageDeflate, our server ("default", "no-context", "peer-window-10", "off"), the offer ws sends,
        // our answer (null: declined), the longest message our server may compress.
        { """{"threshold":0}""", "default", "permessage-deflate; client_max_window_bits", "permessage-deflate", int.MaxValue },
        { """{"threshold":0,"serverNoContextTakeover":true}""", "default", "permessage-deflate; server_no_context_takeover; client_max_window_bits", "permessage-deflate; server_no_context_takeover", int.MaxValue },
        { """{"threshold":0,"clientNoContextTakeover":true}""", "default", "permessage-deflate; client_no_context_takeover; client_max_window_bits", "permessage-deflate; client_no_context_takeover", int.MaxValue },
        { """{"threshold":0,"serverNoContextTakeover":true,"clientNoContextTakeover":true}""", "default", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits", "permessage-deflate; server_no_context_takeover; client_no_context_takeover", int.MaxValue },
        { """{"threshold":0,"serverMaxWindowBits":15}""", "default", "permessage-deflate; server_max_window_bits=15; client_max_window_bits", "permessage-deflate; server_max_window_bits=15", int.MaxValue },
        // A smaller server window: accepted with server_no_context_takeover; only messages up to 2^N are compressed.
        { """{"threshold":0,"serverMaxWindowBits":14}""", "default", "permessage-deflate; server_max_window_bits=14; client_max_window_bits", "permessage-deflate; server_no_context_takeover; server_max_window_bits=14", 1 << 14 },
        { """{"threshold":0,"serverMaxWindowBits":10}""", "default", "permessage-deflate; server_max_window_bits=10; client_max_window_bits", "permessage-deflate; server_no_context_takeover; server_max_window_bits=10", 1 << 10 },
        { """{"threshold":0,"serverMaxWindowBits":8}""", "default", "permessage-deflate; server_max_window_bits=8; client_max_window_bits", "permessage-deflate; server_no_context_takeover; server_max_window_bits=8", 1 << 8 },
        // ws's own window: a value in the offer (ws then compresses with it), or a limit our server asks for.
        { """{"threshold":0,"clientMaxWindowBits":9}""", "default", "permessage-deflate; client_max_window_bits=9", "permessage-deflate", int.MaxValue },
        { """{"threshold":0,"clientMaxWindowBits":15,"serverMaxWindowBits":9,"clientNoContextTakeover":true}""", "default", "permessage-deflate; client_no_context_takeover; server_max_window_bits=9; client_max_window_bits=15", "permessage-deflate; server_no_context_takeover; client_no_context_takeover; server_max_window_bits=9", 1 << 9 },
        { """{"threshold":0}""", "peer-window-10", "permessage-deflate; client_max_window_bits", "permessage-deflate; client_max_window_bits=10", int.MaxValue },
        // Our server without context on either side asks for both, though ws did not.
        { """{"threshold":0}""", "no-context", "permessage-deflate; client_max_window_bits", "permessage-deflate; server_no_context_takeover; client_no_context_takeover", int.MaxValue },
        // Deflate = null: the offer is declined and everything flows uncompressed.
        { """{"threshold":0}""", "off", "permessage-deflate; client_max_window_bits", null, 0 },
    };

    [SkippableTheory]
    [MemberData(nameof(Rows))]
    public async Task WsClientAndOurServerCompressBothWays(string wsOptions, string server, string offer, string? answer, int serverCompressesUpTo)
    {
        Skip.If(node.SkipReason is not null, node.SkipReason);

        PerMessageDeflateOptions? deflate = server switch
        {
            "default" => new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true },
            "no-context" => new PerMessageDeflateOptions { OwnContextTakeover = false, PeerContextTakeover = false },
            "peer-window-10" => new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, PeerMaxWindowBits = 10 },
            _ => null,
        };
        await using DeflateEchoHost host = await DeflateEchoHost.StartAsync(deflate);
        var (exit, text) = await node.RunAsync("node", $"deflate-client.mjs {host.Url} \"{wsOptions.Replace("\"", "\\\"", StringComparison.Ordinal)}\" {Sizes} 200", TimeSpan.FromSeconds(60));
        output.WriteLine($"offer: {string.Join(" | ", host.Offers)}");
        output.WriteLine(text);
        Assert.Equal(0, exit);
        JsonElement report = JsonSerializer.Deserialize<JsonElement>(text.Split('\n', StringSplitOptions.RemoveEmptyEntries)[^1]);

        Assert.Equal(offer, Assert.Single(host.Offers));
        Assert.Equal(answer, report.GetProperty("header").GetString());
        Assert.Equal(answer is null ? "" : "permessage-deflate", report.GetProperty("extensions").GetString());
        long payload = 0;
        long serverCompressed = 0;
        foreach (JsonElement message in report.GetProperty("messages").EnumerateArray())
        {
            int size = message.GetProperty("size").GetInt32();
            payload += size;
            bool expected = answer is not null && size >= new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }.Threshold && size <= serverCompressesUpTo;
            serverCompressed += expected ? size : 0;
            Assert.True(message.GetProperty("ok").GetBoolean());
            Assert.Equal(answer is not null, message.GetProperty("sentCompressed").GetBoolean());
            Assert.True(expected == message.GetProperty("receivedCompressed").GetBoolean(), $"the echo of {message} {(expected ? "should" : "should not")} be compressed");
        }

        Assert.Equal(200, report.GetProperty("many").GetInt32());
        Assert.Equal(1000, report.GetProperty("closeCode").GetInt32());
        // The wire: ws's compressed messages are a fraction of their payload; so are ours when the 1 MiB ones were compressed.
        long written = report.GetProperty("bytesWritten").GetInt64();
        long read = report.GetProperty("bytesRead").GetInt64();
        output.WriteLine($"payload {payload} B each way (+200 short ones); on the wire: {written} B sent by ws, {read} B sent by us");
        if (answer is null)
        {
            Assert.True(written > payload && read > payload);
        }
        else
        {
            // With a window of 2^9 bytes ws finds fewer repeats in the words than with 2^15: a looser bound.
            bool smallWindow = wsOptions.Contains("\"clientMaxWindowBits\":9", StringComparison.Ordinal);
            Assert.True(written < payload / (smallWindow ? 1.5 : 4), $"{written} B on the wire for {payload} B of payload");
            Assert.True(serverCompressesUpTo == int.MaxValue ? read < payload / 4 : read > payload - serverCompressed);
        }

        if (answer is not null)
        {
            JsonElement settled = report.GetProperty("params");
            Assert.Equal(answer.Contains("server_no_context_takeover", StringComparison.Ordinal), settled.TryGetProperty("server_no_context_takeover", out _));
            Assert.Equal(answer.Contains("client_no_context_takeover", StringComparison.Ordinal), settled.TryGetProperty("client_no_context_takeover", out _));
        }
    }
}
