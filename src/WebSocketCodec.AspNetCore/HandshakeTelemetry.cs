using System.Diagnostics.Metrics;
using Microsoft.AspNetCore.Http;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>Opening handshakes on Kestrel, counted under the <c>WebSocketCodec</c> meter by protocol version (1.1
/// upgrade, 2 or 3 extended CONNECT) and answer (101, 200, or the refusal's status).</summary>
internal static class HandshakeTelemetry
{
    private static readonly Meter Meter = new(WebSocketTelemetry.Name);

    private static readonly Counter<long> Handshakes =
        Meter.CreateCounter<long>("websocketcodec.handshakes", "{handshake}", "Opening handshakes answered, by protocol version and status.");

    public static void Record(HttpRequest request, int status)
    {
        string version = HttpProtocol.IsHttp2(request.Protocol) ? "2" : HttpProtocol.IsHttp3(request.Protocol) ? "3" : "1.1";
        Handshakes.Add(
            1,
            new KeyValuePair<string, object?>("network.protocol.version", version),
            new KeyValuePair<string, object?>("http.response.status_code", status));
    }
}
