using System.Diagnostics;
using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Interop;

/// <summary>
/// Headless Chromium against our endpoint, cleartext and TLS: a page echoes text and binary messages of every length
/// class, closes with 4001, and posts what it saw back to the server. Chromium offers permessage-deflate; we decline.
/// </summary>
public sealed class BrowserTests(ChromiumFixture chromium, ITestOutputHelper output) : IClassFixture<ChromiumFixture>
{
    private const string Page = """
        <!doctype html><meta charset="utf-8"><script>
        const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/echo';
        const report = r => fetch('/report', { method: 'POST', body: JSON.stringify(r) });
        (async () => {
          const results = [];
          const ws = new WebSocket(url, ['v1.test']);
          ws.binaryType = 'arraybuffer';
          await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = reject; });
          const next = () => new Promise(resolve => ws.onmessage = e => resolve(e.data));
          for (const n of [0, 1, 125, 126, 127, 65535, 65536, 70000]) {
            const text = 'κ'.repeat(n >> 1);
            ws.send(text);
            results.push((await next()) === text);
            const bytes = new Uint8Array(n).map((_, i) => (i * 7) & 255);
            ws.send(bytes);
            const back = new Uint8Array(await next());
            results.push(back.length === n && back.every((v, i) => v === bytes[i]));
          }
          const closed = new Promise(resolve => ws.onclose = resolve);
          ws.close(4001, 'done');
          const event = await closed;
          await report({ ok: results.every(x => x), count: results.length, code: event.code, clean: event.wasClean, protocol: ws.protocol, extensions: ws.extensions });
        })().catch(e => report({ ok: false, error: String(e) }));
        </script>
        """;

    [SkippableTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ChromiumEchoesEveryLengthAndClosesCleanly(bool tls)
    {
        Skip.If(chromium.SkipReason is not null, chromium.SkipReason);

        var reported = new TaskCompletionSource<JsonElement>(TaskCreationOptions.RunContinuationsAsynchronously);
        var closes = new TaskCompletionSource<WebSocketCloseInfo>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using KestrelHost host = await KestrelHost.StartAsync(app =>
        {
            app.MapGet("/", () => Results.Content(Page, "text/html; charset=utf-8"));
            app.MapPost("/report", async (HttpContext context) =>
            {
                reported.TrySetResult(await JsonSerializer.DeserializeAsync<JsonElement>(context.Request.Body));
                return Results.Ok();
            });
            app.MapWebSocket(
                "/echo",
                (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, (s, type, payload) =>
                    s.Send(type == System.Net.WebSockets.WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload),
                    onClose: info => closes.TrySetResult(info)),
                o => { o.Subprotocols = ["v1.test"]; });
        }, tls: tls);

        string profile = Directory.CreateTempSubdirectory("chromium-").FullName;
        var start = new ProcessStartInfo(chromium.Executable!)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (string argument in new[] { "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions", $"--user-data-dir={profile}" })
        {
            start.ArgumentList.Add(argument);
        }

        if (tls)
        {
            start.ArgumentList.Add("--ignore-certificate-errors");
        }

        start.ArgumentList.Add(host.BaseUrl.ToString());
        using Process browser = Process.Start(start)!;
        try
        {
            JsonElement result = await reported.Task.WaitAsync(TimeSpan.FromSeconds(60));
            output.WriteLine(result.ToString());
            Assert.True(result.GetProperty("ok").GetBoolean(), result.ToString());
            Assert.Equal(16, result.GetProperty("count").GetInt32());
            Assert.Equal(4001, result.GetProperty("code").GetInt32());
            Assert.True(result.GetProperty("clean").GetBoolean());
            Assert.Equal("v1.test", result.GetProperty("protocol").GetString());
            Assert.Equal("", result.GetProperty("extensions").GetString()); // permessage-deflate declined
            WebSocketCloseInfo info = await closes.Task.WaitAsync(TimeSpan.FromSeconds(10));
            Assert.Equal((CloseStatus)4001, info.ReceivedStatus);
            Assert.Equal("done", info.ReceivedReason);
        }
        finally
        {
            browser.Kill(entireProcessTree: true);
            await browser.WaitForExitAsync();
            Directory.Delete(profile, recursive: true);
        }
    }
}

/// <summary>Headless Chromium loads the echo server's own page (<c>samples/EchoServer</c>) over https, where ALPN picks
/// HTTP/2 and the websocket is an extended CONNECT on that connection, and over http/1.1, where it is an upgrade; the
/// page's self-test echoes a text and a 70000-byte binary message, and the server says which protocol carried it.</summary>
public sealed class EchoServerPageBrowserTests(ChromiumFixture chromium, ITestOutputHelper output) : IClassFixture<ChromiumFixture>
{
    [SkippableTheory]
    [InlineData(true, EchoStatistics.Http2ExtendedConnect, false)]
    [InlineData(false, EchoStatistics.Http1Upgrade, false)]
    [InlineData(true, EchoStatistics.Http2ExtendedConnect, true)] // --deflate: Chromium's offer accepted
    [InlineData(false, EchoStatistics.Http1Upgrade, true)]
    public async Task TheDemoPageEchoesOverTheExpectedProtocol(bool tls, string carrier, bool deflate)
    {
        Skip.If(chromium.SkipReason is not null, chromium.SkipReason);

        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Tls = tls, Deflate = deflate });
        string page = tls ? $"https://localhost:{server.BaseUrl.Port}/?selftest" : $"{server.BaseUrl}?selftest";
        await using HeadlessChromium browser = await HeadlessChromium.OpenAsync(chromium.Executable!, new Uri(page));
        string status = await browser.WaitForAsync("document.getElementById('status').textContent", "selftest", TimeSpan.FromSeconds(60));
        output.WriteLine($"{status}; websockets by carrier: {string.Join(", ", server.Statistics.WebSocketRequests)}");
        Assert.Equal("selftest passed", status);
        string extensions = await browser.WaitForAsync("document.getElementById('extensions').textContent", deflate ? "permessage" : "none", TimeSpan.FromSeconds(10));
        // The server's defaults: no context takeover either way.
        Assert.Equal(deflate ? "permessage-deflate; server_no_context_takeover; client_no_context_takeover" : "none (permessage-deflate declined)", extensions);
        Assert.Equal(1, server.Statistics.Count(carrier));
        Assert.Equal(1, server.Statistics.WebSocketRequests.Values.Sum());
    }
}
