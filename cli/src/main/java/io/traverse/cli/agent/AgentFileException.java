package io.traverse.cli.agent;

/** An agent file that cannot be used, with the file and line at fault: {@code agent.conf:7: forward web: ...}. */
public final class AgentFileException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    AgentFileException(String file, int line, String problem) {
        super(file + ":" + line + ": " + problem);
    }

    AgentFileException(String file, String problem, Throwable cause) {
        super(file + ": " + problem, cause);
    }
}
