using System.Globalization;
using System.Net;
using System.Text.RegularExpressions;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>One Autobahn-like case: a websocket with an offer, <c>count</c> messages sent (compressed by the test's
/// own client, split into frames) while their echoes are read concurrently, each echo checked byte for byte, and
/// checked to be compressed exactly when our server may compress it (every length with threshold 0, up to 2^N with a
/// server window of N &lt; 15 bits); then a clean close.</summary>
public static class DeflateCase
{
    /// <summary>Runs a case; returns the client after it closed, for its answer.</summary>
    /// <param name="endPoint">The echo (threshold 0).</param>
    /// <param name="offer">The request's <c>Sec-WebSocket-Extensions</c>.</param>
    /// <param name="clientWindowOffered">The <c>client_max_window_bits</c> value of the offer the server accepted
    /// (null: none), which this client keeps to.</param>
    /// <param name="kind">The payload kind (null: the four kinds in turn).</param>
    /// <param name="size">The message size.</param>
    /// <param name="fragment">The frame size (0: whole).</param>
    /// <param name="count">How many messages.</param>
    public static async Task<string?> RunAsync(
        IPEndPoint endPoint, string offer, int? clientWindowOffered, PayloadKind? kind, int size, int fragment, int count)
    {
        using RawDeflateClient client = await RawDeflateClient.ConnectAsync(endPoint, offer);
        string answer = client.Answer ?? throw new InvalidOperationException($"'{offer}' was declined.");
        int serverWindow = WindowBits(answer, "server_max_window_bits") ?? 15;
        int clientWindow = Math.Min(WindowBits(answer, "client_max_window_bits") ?? 15, clientWindowOffered ?? 15);
        client.Compress = true;
        client.KeepContext = !answer.Contains("client_no_context_takeover", StringComparison.Ordinal) && clientWindow == 15;
        client.CompressUpTo = clientWindow == 15 ? int.MaxValue : 1 << clientWindow;
        client.ServerKeepsContext = !answer.Contains("server_no_context_takeover", StringComparison.Ordinal);
        if (serverWindow < 15)
        {
            Assert.False(client.ServerKeepsContext); // a smaller window is accepted only with server_no_context_takeover
        }

        int serverCompressesUpTo = serverWindow == 15 ? int.MaxValue : 1 << serverWindow;
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        Task send = Task.Run(async () =>
        {
            for (int i = 0; i < count; i++)
            {
                PayloadKind k = kind ?? (PayloadKind)(i % 4);
                await client.SendAsync(DeflateDataSets.Opcode(k), DeflateDataSets.Payload(k, size, i), fragment, timeout.Token);
            }
        });
        for (int i = 0; i < count; i++)
        {
            PayloadKind k = kind ?? (PayloadKind)(i % 4);
            (WebSocketOpcode opcode, bool compressed, byte[] payload) = await client.ReceiveAsync(timeout.Token);
            Assert.Equal(DeflateDataSets.Opcode(k), opcode);
            Assert.True(payload.AsSpan().SequenceEqual(DeflateDataSets.Payload(k, size, i)), $"echo {i} of {count} ({k}, {size} B, frames of {fragment}) differs");
            Assert.Equal(size <= serverCompressesUpTo, compressed);
        }

        await send;
        await client.CloseAsync();
        return answer;
    }

    /// <summary>The value of <paramref name="parameter"/> in an extension header (null: absent or without a value).</summary>
    public static int? WindowBits(string header, string parameter)
    {
        Match match = Regex.Match(header, parameter + @"=(\d+)");
        return match.Success ? int.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture) : null;
    }
}
