namespace WebSocketCodec.Soak;

/// <summary>A whole run: the segments not yet recorded in the state file, one after another, each recorded (and the
/// report rewritten) as it completes. Stops at the first segment that failed.</summary>
public static class SoakRun
{
    /// <summary>Runs (or continues) the run; returns its state.</summary>
    public static async Task<SoakState> RunAsync(SoakOptions options, string command, Action<string>? log, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        SoakState state = SoakState.For(options);
        if (options.StatePath is { } path && File.Exists(path))
        {
            SoakState recorded = SoakState.Load(path);
            if (!recorded.Matches(options))
            {
                throw new InvalidOperationException(
                    $"{path} records another run (seed {recorded.Seed}, {recorded.Frames} frames, segments of {recorded.SegmentFrames}, {recorded.Connections} websockets, {string.Join(",", recorded.Transports)}): use another --state or the same options.");
            }

            state = recorded;
            log?.Invoke($"continuing {path}: {state.Segments.Count} of {state.SegmentCount} segments done, {state.CompletedFrames:N0} frames");
        }

        SoakMaterial material = SoakMaterial.Create(options.Seed);
        await using SoakServers servers = await SoakServers.StartAsync(cancellationToken: cancellationToken).ConfigureAwait(false);
        for (long index = state.Segments.Count; index < state.SegmentCount && !cancellationToken.IsCancellationRequested; index++)
        {
            if (state.Segments.Count > 0 && !state.Segments[^1].Passed)
            {
                log?.Invoke($"segment {state.Segments[^1].Index} failed: not going on (see the report)");
                break;
            }

            long frames = Math.Min(options.SegmentFrames, options.Frames - (index * options.SegmentFrames));
            SegmentResult segment = await SoakSegment.RunAsync(options, material, servers, index, frames, log, cancellationToken).ConfigureAwait(false);
            segment.Commit = WebSocketCodec.Bench.ResultsStamp.CurrentCommit();
            segment.FinishedUtc = DateTime.UtcNow.ToString("yyyy-MM-dd HH:mm", System.Globalization.CultureInfo.InvariantCulture);
            state.Segments.Add(segment);
            SoakCounts total = segment.Total();
            log?.Invoke($"segment {index + 1}/{state.SegmentCount}: {total.Frames:N0} frames in {segment.Seconds:F1} s ({total.Frames / Math.Max(segment.Seconds, 1e-9):N0} frames/s), "
                + $"{total.Failures} failures, pools outstanding {segment.ServerPoolOutstanding}/{segment.ClientPoolOutstanding}; run total {state.CompletedFrames:N0}");
            foreach (string failure in total.FailureSamples.Take(5))
            {
                log?.Invoke("  " + failure);
            }

            if (options.StatePath is { } statePath)
            {
                state.Save(statePath);
            }

            WriteReport(options, state, command);
        }

        return state;
    }

    /// <summary>Writes the report of <paramref name="state"/> to the options' report path, if any.</summary>
    public static void WriteReport(SoakOptions options, SoakState state, string command)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.ReportPath is { } report)
        {
            File.WriteAllText(report, SoakReport.Render(state, command));
        }
    }
}
