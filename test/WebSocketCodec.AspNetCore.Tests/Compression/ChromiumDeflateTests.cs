using System.Diagnostics;
using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>
/// Headless Chromium against our endpoint with permessage-deflate on: the page (served by another host, so the echo
/// host's byte counts are the websocket's alone) echoes text, JSON and binary messages, small and 100 KiB, and reports
/// <c>ws.extensions</c>. Chromium hides RSV1 from the page, so the bytes on our sockets show that both directions
/// were compressed.
/// </summary>
public sealed class ChromiumDeflateTests(ChromiumFixture chromium, ITestOutputHelper output) : IClassFixture<ChromiumFixture>
{
    private const string Page = """
        <!doctype html><meta charset="utf-8"><script>
        const report = r => fetch('/report', { method: 'POST', body: JSON.stringify(r) });
        (async () => {
          const ws = new WebSocket('ECHO_URL');
          ws.binaryType = 'arraybuffer';
          await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
          const next = () => new Promise(resolve => ws.onmessage = e => resolve(e.data));
          const words = ['lorem', 'ipsum', 'dolor', 'κόσμε', 'grüße', 'sit', 'amet'];
          const text = n => { let s = ''; for (let i = 0; s.length < n; i++) s += words[(i * 3 + (i >> 2)) % words.length] + ' '; return s.slice(0, n); };
          const json = n => { const rows = []; let s = '[]'; for (let i = 0; s.length < n; i++) { rows.push({ id: i, name: 'user' + (i % 13), online: i % 3 === 0, score: i * 0.25 }); s = JSON.stringify(rows); } return s; };
          const binary = n => new Uint8Array(n).map((_, i) => (i % 251) ^ ((i >> 12) & 255));
          const results = [];
          let payload = 0;
          for (const n of [20, 100 * 1024]) {
            for (const message of [text(n), json(n)]) {
              ws.send(message);
              results.push((await next()) === message);
              payload += new TextEncoder().encode(message).length;
            }
            const bytes = binary(n);
            ws.send(bytes);
            const back = new Uint8Array(await next());
            results.push(back.length === n && back.every((v, i) => v === bytes[i]));
            payload += n;
          }
          const closed = new Promise(resolve => ws.onclose = resolve);
          ws.close(1000, 'done');
          const event = await closed;
          await report({ results, payload, extensions: ws.extensions, code: event.code, clean: event.wasClean });
        })().catch(e => report({ error: String(e) }));
        </script>
        """;

    [SkippableFact]
    public async Task ChromiumNegotiatesPermessageDeflateAndEchoesCompressedBothWays()
    {
        Skip.If(chromium.SkipReason is not null, chromium.SkipReason);

        await using DeflateEchoHost echo = await DeflateEchoHost.StartAsync(new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true });
        var reported = new TaskCompletionSource<JsonElement>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using KestrelHost pages = await KestrelHost.StartAsync(app =>
        {
            app.MapGet("/", () => Results.Content(Page.Replace("ECHO_URL", echo.Url.ToString(), StringComparison.Ordinal), "text/html; charset=utf-8"));
            app.MapPost("/report", async (HttpContext context) =>
            {
                reported.TrySetResult(await JsonSerializer.DeserializeAsync<JsonElement>(context.Request.Body));
                return Results.Ok();
            });
        });

        string profile = Directory.CreateTempSubdirectory("chromium-").FullName;
        var start = new ProcessStartInfo(chromium.Executable!) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string argument in new[] { "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions", $"--user-data-dir={profile}", pages.BaseUrl.ToString() })
        {
            start.ArgumentList.Add(argument);
        }

        using Process browser = Process.Start(start)!;
        try
        {
            JsonElement result = await reported.Task.WaitAsync(TimeSpan.FromSeconds(60));
            WebSocketCloseInfo end = await echo.NextEndAsync();
            string offer = Assert.Single(echo.Offers);
            long payload = result.TryGetProperty("payload", out JsonElement p) ? p.GetInt64() : 0;
            output.WriteLine($"offer: {offer}\nreport: {result}\nwire: {echo.Wire.Read} B from Chromium, {echo.Wire.Written} B to Chromium, for {payload} B of payload each way");

            Assert.False(result.TryGetProperty("error", out _), result.ToString());
            Assert.Equal("permessage-deflate; client_max_window_bits", offer);
            Assert.Equal("permessage-deflate", result.GetProperty("extensions").GetString());
            Assert.Equal(6, result.GetProperty("results").GetArrayLength());
            Assert.All(result.GetProperty("results").EnumerateArray(), r => Assert.True(r.GetBoolean(), result.ToString()));
            Assert.Equal(1000, result.GetProperty("code").GetInt32());
            Assert.True(result.GetProperty("clean").GetBoolean());
            Assert.True(end.IsClean, end.ToString());
            // Both directions compressed: each a small fraction of the ~320 KiB of payload, handshake included (measured: about
            // 17 KB from Chromium, 50 KB from us at CompressionLevel.Fastest).
            Assert.True(echo.Wire.Read < payload / 8, $"{echo.Wire.Read} B from Chromium");
            Assert.True(echo.Wire.Written < payload / 4, $"{echo.Wire.Written} B to Chromium");
            await echo.AssertPoolBalancedAsync();
        }
        finally
        {
            browser.Kill(entireProcessTree: true);
            await browser.WaitForExitAsync();
            Directory.Delete(profile, recursive: true);
        }
    }
}
