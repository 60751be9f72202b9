using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace WebSocketCodec.Pipelines.Tests.Diagnostics;

/// <summary>Metrics and traces under the name <c>WebSocketCodec</c>.</summary>
[Collection(nameof(SerialCollection))]
public sealed class TelemetryTests
{
    [Fact]
    public async Task CountersAndTheActivityReportTrafficAndTheClose()
    {
        var totals = new Dictionary<string, long>();
        var closeTags = new List<string>();
        using var meters = new MeterListener();
        meters.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == WebSocketTelemetry.Name)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        meters.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            lock (totals)
            {
                totals[instrument.Name] = totals.GetValueOrDefault(instrument.Name) + value;
                foreach (var tag in tags)
                {
                    if (instrument.Name == "websocketcodec.violations" || tag.Key == "websocket.close.status")
                    {
                        closeTags.Add($"{tag.Key}={tag.Value}");
                    }
                }
            }
        });
        meters.Start();
        var activities = new List<Activity>();
        using var tracing = new ActivityListener
        {
            ShouldListenTo = source => source.Name == WebSocketTelemetry.Name,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = activity => { lock (activities) { activities.Add(activity); } },
        };
        ActivitySource.AddActivityListener(tracing);

        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());
        await loop.SendAsync([
            .. WireFrames.Client(WebSocketOpcode.Text, "a"u8, fin: false),
            .. WireFrames.Client(WebSocketOpcode.Continuation, "b"u8),
            .. WireFrames.Client(WebSocketOpcode.Binary, new byte[100]),
            0x82, 0x00]); // unmasked: a violation
        await loop.ReadAsync(4);
        await loop.FinAsync();
        await run.WaitAsync(Loopback.Timeout());
        meters.RecordObservableInstruments();

        lock (totals)
        {
            Assert.True(totals.GetValueOrDefault("websocketcodec.frames.received") >= 3);
            Assert.True(totals.GetValueOrDefault("websocketcodec.messages.received") >= 2);
            Assert.True(totals.GetValueOrDefault("websocketcodec.bytes.sent") >= 4);
            Assert.True(totals.GetValueOrDefault("websocketcodec.connections") >= 1);
            Assert.Contains("websocket.violation=UnmaskedFrame", closeTags);
            Assert.Contains("websocket.close.status=1002", closeTags);
        }

        Activity activity = Assert.Single(activities, a => Equals(a.GetTagItem("websocket.violation"), "UnmaskedFrame"));
        Assert.Equal(ActivityStatusCode.Error, activity.Status);
        Assert.Equal(1002, activity.GetTagItem("websocket.close.status"));
    }
}
