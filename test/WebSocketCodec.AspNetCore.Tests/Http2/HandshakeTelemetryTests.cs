using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using Microsoft.AspNetCore.Builder;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Http2;

/// <summary>Handshake events: the <c>websocketcodec.handshakes</c> counter by protocol version and status.</summary>
public sealed class HandshakeTelemetryTests
{
    [Fact]
    public async Task HandshakesAreCountedByProtocolAndStatus()
    {
        var seen = new ConcurrentQueue<(string Version, int Status)>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == WebSocketTelemetry.Name && instrument.Name == "websocketcodec.handshakes")
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((_, _, tags, _) =>
        {
            string? version = null;
            int status = 0;
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == "network.protocol.version")
                {
                    version = (string?)tag.Value;
                }
                else if (tag.Key == "http.response.status_code")
                {
                    status = (int)tag.Value!;
                }
            }

            seen.Enqueue((version!, status));
        });
        listener.Start();

        await using KestrelHost host = await KestrelHost.StartAsync(
            map: app => app.MapWebSocket("/telemetry-ws", (_, channel) => channel.CloseAsync()),
            sharedPort: true);
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        using (WebSocketConnection overHttp2 = await WebSocketHttp2Client.ConnectAsync(invoker, host.WebSocketUrl("/telemetry-ws")))
        {
            await overHttp2.CloseAsync();
        }

        using (WebSocketConnection overHttp11 = await WebSocketClient.ConnectAsync(host.WebSocketUrl("/telemetry-ws")))
        {
            await overHttp11.CloseAsync();
        }

        using HttpResponseMessage refused = await invoker.SendAsync(Http2Requests.ExtendedConnect(host.BaseUrl, "/telemetry-ws", version: "12"), RawHttp.Timeout());
        Assert.Contains(("2", 200), seen);
        Assert.Contains(("1.1", 101), seen);
        Assert.Contains(("2", 400), seen);
    }
}
