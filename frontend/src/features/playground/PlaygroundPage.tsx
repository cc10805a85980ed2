// /agents/:slug and /agents/:slug/c/:conversationId — chat with one agent, info panel beside it.
import { Upload } from '@/components/icons'
import { useEffect, useRef, useState } from 'react'
import { useLocation, useMatch, useNavigate, useParams, useSearchParams } from 'react-router'
import { api, ApiError } from '@/lib/api/client'
import { invalidate } from '@/lib/resource'
import { useAgent, useConversation, useModels } from '@/lib/queries'
import { awaitingKinds, type Answer } from '@/lib/stream/approval'
import { isTyping, mod, useShortcut } from '@/lib/shortcuts'
import { ErrorState } from '@/components/common/States'
import { Skeleton } from '@/components/ui/skeleton'
import { ConfirmDialog } from '@/features/conversations/ConfirmDialog'
import { agentPath, conversationPath } from '@/features/conversations/paths'
import { InfoPanel, parseInfoTab, type InfoTab } from '@/features/info/InfoPanel'
import { awaitingHint } from './ApprovalCard'
import { ChatAs } from './ChatAs'
import { filledLabels, useChatAs } from './chatAsLabels'
import { Composer } from './Composer'
import { useDepsForm } from './DepsForm'
import { ForkBar } from './ForkBar'
import { MissingConversation } from './MissingConversation'
import { ModelSelect } from './ModelSelect'
import { PlaygroundEmpty } from './PlaygroundEmpty'
import { PlaygroundHeader } from './PlaygroundHeader'
import { EditButton, RerunEditor } from './RerunEditor'
import { Thread, type ThreadHandle, type UserItem } from './Thread'
import { combineThread, combineTotals } from './threadItems'
import { useChatSession, type SendInput } from './useChatSession'
import { useFileDrop } from './useFileDrop'
import { UserBubble } from './UserBubble'
import { fileOf, useRerun } from './useRerun'

export function PlaygroundPage() {
  const { slug = '' } = useParams()
  const match = useMatch('/agents/:slug/c/:conversationId')
  return <Playground key={slug} slug={slug} conversationId={match?.params.conversationId ?? null} />
}

function ThreadSkeleton() {
  return (
    <div className="mx-auto w-full max-w-3xl space-y-6 px-3 py-4 sm:px-6 sm:py-6" aria-busy="true" aria-label="Loading the conversation">
      <Skeleton className="ml-auto h-10 w-1/2 rounded-2xl" />
      <Skeleton className="h-24 w-4/5" />
      <Skeleton className="ml-auto h-10 w-1/3 rounded-2xl" />
    </div>
  )
}

function Playground({ slug, conversationId: routeId }: { slug: string; conversationId: string | null }) {
  const navigate = useNavigate()
  const location = useLocation()
  const [params, setParams] = useSearchParams()
  const agent = useAgent(slug)
  const models = useModels(slug)
  const [model, setModel] = useState<string | null>(null)
  const [chatAs, setChatAs] = useChatAs(slug)
  const [files, setFiles] = useState<File[]>([])
  const [clearing, setClearing] = useState(false)
  const thread = useRef<ThreadHandle>(null)
  const input = useRef<HTMLTextAreaElement>(null)

  const session = useChatSession({
    slug,
    routeConversationId: routeId,
    onConversationCreated: (id) => navigate({ pathname: conversationPath(slug, id), search: location.search }, { replace: true }),
  })
  const detail = useConversation(session.replayId)

  const defaultModel = models.data?.default ?? agent.data?.model?.id ?? null
  const selectedModel = model ?? defaultModel
  const infoTab = parseInfoTab(params.get('info'))
  const setInfo = (tab: InfoTab | null) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current)
        if (tab) next.set('info', tab)
        else next.delete('info')
        return next
      },
      { replace: true },
    )

  const agentMissing = agent.error instanceof ApiError && agent.error.status === 404
  const conversationMissing = detail.error instanceof ApiError && detail.error.status === 404 && session.live.length === 0
  // An unknown conversation of a known agent: the composer gives way to starting a new one.
  const offerNew = conversationMissing && !agentMissing
  const unavailable = agentMissing || detail.data?.conversation.agent_available === false
  const items = combineThread(detail.data?.messages, session.live)
  const totals = combineTotals(detail.data?.totals, session.live)
  // A run paused on tool calls: nothing else can be sent until they are decided.
  const awaiting = awaitingKinds(items)
  const deps = useDepsForm(agent.data, detail.data?.conversation, session.busy || unavailable)
  const loadingThread = session.conversationId !== null && !detail.data && detail.error === undefined && session.live.length === 0

  const drop = useFileDrop((dropped) => setFiles((current) => [...current, ...dropped]), !unavailable && !offerNew)

  useEffect(() => {
    input.current?.focus()
  }, [routeId])

  useShortcut((event) => {
    if (mod(event) && event.key.toLowerCase() === 'i') {
      setInfo(infoTab ? null : 'config')
      return true
    }
    if (event.key === 'Escape' && session.busy) {
      session.stop()
      return true
    }
    if (event.key === '/' && !isTyping(event.target) && !mod(event)) {
      input.current?.focus()
      return true
    }
    return false
  })

  /** Send on `model` (the chosen one; sent only when it is not the default). */
  const sendOn = ({ message, files: attached, model: chosen }: SendInput) => {
    void session.send({ message, files: attached, model: chosen !== defaultModel ? chosen : null, deps: deps.values, chatAs: filledLabels(chatAs) })
    requestAnimationFrame(() => thread.current?.scrollToBottom())
  }

  const decide = (answers: Answer[]) => {
    void session.decide(answers, selectedModel !== defaultModel ? selectedModel : null)
    requestAnimationFrame(() => thread.current?.scrollToBottom())
  }

  const send = (message: string) => {
    const attached = files
    setFiles([])
    sendOn({ message, files: attached, model: selectedModel })
  }

  const rerun = useRerun({
    conversationId: session.conversationId,
    send: sendOn,
    open: (id) => navigate({ pathname: conversationPath(slug, id), search: location.search }),
  })
  // Only stored messages can be forked at; not while a run is going or the agent is gone.
  const editable = new Set(
    session.busy || unavailable ? [] : (detail.data?.messages ?? []).filter((message) => message.role === 'user').map((message) => message.id),
  )
  const renderUser = (item: UserItem) =>
    rerun.editing === item.id ? (
      <RerunEditor
        messageId={item.id}
        text={item.text}
        attachments={item.attachments}
        models={models.data?.models ?? []}
        model={selectedModel}
        defaultModel={defaultModel}
        working={rerun.working}
        error={rerun.error}
        onRerun={(input) => {
          setModel(input.model)
          void rerun.rerun(input)
        }}
        onCancel={() => rerun.edit(null)}
      />
    ) : (
      <UserBubble
        text={item.text}
        attachments={item.attachments}
        actions={editable.has(item.id) ? <EditButton onClick={() => rerun.edit(item.id)} /> : undefined}
      />
    )

  // The last question: Retry sends it again here; Regenerate asks it again in a branch (the
  // answer on screen stays where it is), which needs it stored.
  const lastQuestion = [...items].reverse().find((item): item is UserItem => item.kind === 'user')
  const lastStored = lastQuestion && editable.has(lastQuestion.id) ? lastQuestion : undefined
  const retry = () => {
    if (!lastQuestion) return
    void Promise.all(lastQuestion.attachments.map(fileOf)).then(
      (attached) => sendOn({ message: lastQuestion.text, files: attached, model: selectedModel }),
      () => undefined, // an attachment cannot be read back: send nothing rather than a message without it
    )
  }
  const regenerate = () => {
    if (!lastStored) return
    void rerun.rerun({ messageId: lastStored.id, message: lastStored.text, attachments: lastStored.attachments, model: selectedModel })
  }

  const startNew = () => {
    session.reset()
    navigate({ pathname: agentPath(slug), search: location.search })
    input.current?.focus()
  }

  const clear = async () => {
    const id = session.conversationId
    if (id) await api.remove(id)
    session.reset()
    invalidate('conversations')
    navigate({ pathname: agentPath(slug), search: location.search }, { replace: true })
  }

  if (agentMissing && !session.conversationId) {
    return <ErrorState error={agent.error} className="my-auto" />
  }

  return (
    <div className="relative flex h-full min-h-0">
      <section aria-label="Playground" className="relative flex min-w-0 flex-1 flex-col" {...drop.handlers}>
        <PlaygroundHeader
          agent={agent.data}
          conversation={detail.data?.conversation}
          title={conversationMissing ? 'Conversation not found' : (detail.data?.conversation.title ?? (session.live[0]?.user.text.slice(0, 100) || null))}
          totals={totals}
          hasConversation={session.conversationId !== null && !conversationMissing}
          infoOpen={infoTab !== null}
          onNew={startNew}
          onClear={() => setClearing(true)}
          onToggleInfo={() => setInfo(infoTab ? null : 'config')}
        />
        <ForkBar conversation={detail.data?.conversation} />
        {conversationMissing ? (
          <ErrorState error={detail.error} className="flex-1" />
        ) : loadingThread ? (
          <div className="min-h-0 flex-1">
            <ThreadSkeleton />
          </div>
        ) : (
          <Thread
            ref={thread}
            items={items}
            empty={<PlaygroundEmpty agent={agent.data} onSuggest={session.busy || unavailable ? undefined : send} />}
            renderUser={renderUser}
            onRetry={session.busy || unavailable || !lastQuestion || awaiting.size ? undefined : retry}
            onRegenerate={session.busy || unavailable || !lastStored ? undefined : regenerate}
            onDecide={session.busy || unavailable ? undefined : decide}
            decisionError={session.decisionError}
          />
        )}
        {detail.error !== undefined && !conversationMissing && !detail.data && (
          <ErrorState error={detail.error} retry={detail.reload} className="py-4" />
        )}
        {!offerNew && deps.form}
        {offerNew ? (
          <MissingConversation agentName={agent.data?.label ?? agent.data?.name} onStartNew={startNew} />
        ) : (
          <Composer
            busy={session.busy}
            disabled={unavailable || awaiting.size > 0}
            disabledReason={unavailable ? 'This agent is not available any more: the conversation is read-only.' : awaitingHint(awaiting)}
            files={files}
            onFiles={setFiles}
            onSend={send}
            onStop={session.stop}
            inputRef={input}
            modelSelect={
              <ModelSelect
                models={models.data?.models ?? []}
                value={selectedModel}
                defaultId={defaultModel}
                onChange={setModel}
                disabled={session.busy || unavailable}
              />
            }
            chatAs={
              <ChatAs
                labels={chatAs}
                onChange={setChatAs}
                conversation={session.conversationId === null ? null : detail.data?.conversation}
                disabled={session.busy || unavailable}
              />
            }
          />
        )}
        {drop.dragging && (
          <div className="pointer-events-none absolute inset-2 z-20 flex flex-col items-center justify-center gap-2 rounded-xl border-2 border-dashed border-primary bg-background/85 text-sm font-medium" data-testid="drop-overlay">
            <Upload className="size-6 text-primary" />
            Drop files to attach them
          </div>
        )}
      </section>
      {infoTab && <InfoPanel agent={agent.data} error={agent.error} tab={infoTab} onTab={setInfo} onClose={() => setInfo(null)} reload={agent.reload} />}
      <ConfirmDialog
        open={clearing}
        onOpenChange={setClearing}
        title="Clear this conversation?"
        description="Its messages, tool calls and attachments will be deleted, and the playground starts empty."
        confirmLabel="Clear conversation"
        onConfirm={clear}
      />
    </div>
  )
}
