import { useRef, useState, type DragEvent } from 'react'

const hasFiles = (event: DragEvent) => Array.from(event.dataTransfer.types).includes('Files')

/** Drag-and-drop of files onto an area: `dragging` while files hover it, `onFiles` on drop. */
export function useFileDrop(onFiles: (files: File[]) => void, enabled: boolean) {
  const [dragging, setDragging] = useState(false)
  const depth = useRef(0)
  const handlers = {
    onDragEnter: (event: DragEvent) => {
      if (!enabled || !hasFiles(event)) return
      event.preventDefault()
      depth.current += 1
      setDragging(true)
    },
    onDragOver: (event: DragEvent) => {
      if (!enabled || !hasFiles(event)) return
      event.preventDefault()
      event.dataTransfer.dropEffect = 'copy'
    },
    onDragLeave: (event: DragEvent) => {
      if (!enabled || !hasFiles(event)) return
      depth.current = Math.max(0, depth.current - 1)
      if (depth.current === 0) setDragging(false)
    },
    onDrop: (event: DragEvent) => {
      if (!enabled || !hasFiles(event)) return
      event.preventDefault()
      depth.current = 0
      setDragging(false)
      const files = Array.from(event.dataTransfer.files)
      if (files.length) onFiles(files)
    },
  }
  return { dragging, handlers }
}
