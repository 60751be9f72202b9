using Microsoft.Diagnostics.Runtime;

namespace WebSocketCodec.Scale;

/// <summary>
/// What the server's managed heap holds, by type: the server process is attached (ClrMD, ptrace on Linux; suspended
/// while its heap is walked) right after a forced compacting collection, so nearly every object counted is alive.
/// Taken with no websocket open and with every websocket open, the difference by type divided by the websockets
/// is what one idle websocket keeps on the heap.
/// </summary>
internal static class HeapTypes
{
    /// <summary>Bytes and object counts by type name.</summary>
    public static Dictionary<string, (long Bytes, long Count)> Take(int processId)
    {
        var types = new Dictionary<string, (long Bytes, long Count)>();
        using DataTarget target = DataTarget.AttachToProcess(processId, suspend: true);
        ClrInfo clr = target.ClrVersions[0];
        string? dac = DacBeside(clr.ModuleInfo.FileName) ?? DacBeside(typeof(object).Assembly.Location);
        using ClrRuntime runtime = dac is null ? clr.CreateRuntime() : clr.CreateRuntime(dac, ignoreMismatch: true);
        foreach (ClrObject item in runtime.Heap.EnumerateObjects())
        {
            if (!item.IsValid || item.IsFree)
            {
                continue;
            }

            string name = item.Type?.Name ?? "?";
            types[name] = types.TryGetValue(name, out var total) ? (total.Bytes + (long)item.Size, total.Count + 1) : ((long)item.Size, 1);
        }

        return types;
    }

    /// <summary>The runtime's data access library next to <paramref name="runtimeFile"/> (it ships with the runtime).</summary>
    private static string? DacBeside(string? runtimeFile)
    {
        string? directory = Path.GetDirectoryName(runtimeFile);
        if (directory is null)
        {
            return null;
        }

        string dac = Path.Combine(directory, OperatingSystem.IsWindows() ? "mscordaccore.dll" : OperatingSystem.IsMacOS() ? "libmscordaccore.dylib" : "libmscordaccore.so");
        return File.Exists(dac) ? dac : null;
    }

    /// <summary>The types that grew most from <paramref name="before"/> to <paramref name="after"/>, per websocket:
    /// (type, bytes per websocket, objects per websocket), largest first.</summary>
    public static IReadOnlyList<HeapTypeGrowth> Growth(
        Dictionary<string, (long Bytes, long Count)> before, Dictionary<string, (long Bytes, long Count)> after, int webSockets, int top)
    {
        return [.. after
            .Select(a => (a.Key, Bytes: a.Value.Bytes - (before.TryGetValue(a.Key, out var b) ? b.Bytes : 0), Count: a.Value.Count - (before.TryGetValue(a.Key, out var c) ? c.Count : 0)))
            .OrderByDescending(g => g.Bytes)
            .Take(top)
            .Select(g => new HeapTypeGrowth(g.Key, (double)g.Bytes / webSockets, (double)g.Count / webSockets))];
    }
}

/// <summary>One type's growth of the managed heap per websocket.</summary>
public sealed record HeapTypeGrowth(string Type, double BytesPerWebSocket, double ObjectsPerWebSocket);
